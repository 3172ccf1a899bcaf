// The filesystem half of the sandbox plan: which bwrap mount arguments, in which order.
// Pure: decisions come from Config + HostFacts only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/section/section.h"

namespace cordon {

// The masked credential files (system and home) are listed in common/credential_files.h.

// The directory hiding the workspace's siblings (its parent), or "" when there is none to
// hide: the parent is /, already masked (/tmp, /run, $HOME) or a system directory.
std::string siblings_mask(const Config& config, const HostFacts& facts);

struct MountPlan {
  std::vector<std::string> args;      // bwrap arguments, in order
  std::vector<std::string> writable;  // host paths bound read-write
  std::vector<BoundPath> bound;       // the binds by descriptor: read-write ones, control entries
};

// `session_args` (the generated files under /run/cordon) are inserted into the private
// /run/cordon tmpfs before it turns read-only. Bound paths take descriptor numbers from `next_fd` on.
// The workspace's bind and footholds (section/section.h WorkspaceMounts) go in at step 4.
MountPlan plan_mounts(const Config& config, const AgentProfile& profile, const HostFacts& facts,
                      const WorkspaceMounts& workspace, const std::vector<std::string>& session_args, int next_fd);

// The host path a configured path binds: its resolved form when gathered, else itself.
std::string resolved_or_same(const std::map<std::string, std::string>& resolved, const std::string& path);

}  // namespace cordon
