// The filesystem half of the sandbox plan: which bwrap mount arguments, in which order.
// Pure: decisions come from Config + HostFacts only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "launcher/fs/loose_permissions.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/section/section.h"

namespace cordon {

// The masked credential files (system and home) are listed in common/credential_files.h.

// The directory hiding the workspace's siblings (its parent), or "" when there is none to
// hide: the parent is /, already masked (/tmp, /run, $HOME) or a system directory.
std::string siblings_mask(const WorkspaceConfig& workspace, const FilesystemConfig& filesystem, const HostFacts& facts);

// The filesystem's section: every mount, in bwrap's order (fs/mounts.cpp's numbered steps).
struct FilesystemSection {
  std::vector<MountStep> mounts;
};

// Pure. `siblings`: siblings_mask(); `workspace`: the workspace section's own mounts
// (workspace/workspace_plan.h), placed at step 4.
FilesystemSection plan_filesystem(const FilesystemConfig& filesystem, const HomeConfig& home,
                                  const std::string& siblings, const AgentProfile& profile, const HostFacts& facts,
                                  const std::vector<MountStep>& workspace);

// The mounts as bwrap's arguments. Descriptor numbers from `first_fd` on: the generated files
// first (in `files` order), then the paths bound by descriptor (in mount order).
struct RenderedMounts {
  std::vector<std::string> args;
  std::vector<BoundPath> bound;       // the binds by descriptor: read-write ones, control entries
  std::vector<std::string> writable;  // host paths bound read-write by descriptor
  std::vector<DataFile> files;        // `files`, numbered
};
RenderedMounts render_mounts(std::vector<MountStep> mounts, std::vector<DataFile> files, int first_fd);

// The host paths the steps bind read-write by descriptor, in order (render_mounts' writable).
std::vector<std::string> writable_paths(const std::vector<MountStep>& mounts);

// What a teardown tightens (fs/loose_permissions.h): the host side of the agent's state
// entries and caches, whole, and the workspace's own directory.
std::vector<PermissionRoot> permission_roots(const std::vector<MountStep>& mounts);

// The host path a configured path binds: its resolved form when gathered, else itself.
std::string resolved_or_same(const std::map<std::string, std::string>& resolved, const std::string& path);

}  // namespace cordon
