// The filesystem half of the sandbox plan: which bwrap mount arguments, in which order.
// Pure: decisions come from Config + HostFacts only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"

namespace cordon {

// The masked credential files (system and home) are listed in common/credential_files.h.

// A file whose content the launcher generates, handed to bwrap as a sealed memfd at a planned
// descriptor number (--ro-bind-data FD DEST): no temporary file touches the host.
struct DataFile {
  std::string dest;  // path inside the sandbox
  std::string content;
  int fd = -1;  // planned descriptor number in the bwrap child
};

// Hands out planned descriptor numbers in order.
struct DataFiles {
  int next_fd;
  std::vector<DataFile> files;
  // Adds a file and returns its bwrap arguments.
  std::vector<std::string> add(const std::string& dest, std::string content);
};

// The directory hiding the workspace's siblings (its parent), or "" when there is none to
// hide: the parent is /, already masked (/tmp, /run, $HOME) or a system directory.
std::string siblings_mask(const Config& config, const HostFacts& facts);

// A host path bound read-write by descriptor (--bind-fd): the launcher opens `source` once,
// without following a symbolic link, checks that the descriptor is still that path
// (fs/bound_paths.h), and bwrap binds the descriptor, verifying the mount is that inode. A
// swap of any component between the plan's checks and the mount cannot redirect the bind.
struct BoundPath {
  std::string source;      // resolved host path, validated by the plan
  std::string dest;        // where it appears inside
  int fd = -1;             // planned descriptor number in the bwrap child
  bool read_only = false;  // an agent's control entry (--ro-bind-fd)
};

struct MountPlan {
  std::vector<std::string> args;      // bwrap arguments, in order
  std::vector<std::string> writable;  // host paths bound read-write
  std::vector<BoundPath> bound;       // the binds by descriptor: read-write ones, control entries
};

// `session_args` (the generated files under /run/cordon) are inserted into the private
// /run/cordon tmpfs before it turns read-only. Bound paths take descriptor numbers from `next_fd` on.
MountPlan plan_mounts(const Config& config, const AgentProfile& profile, const HostFacts& facts,
                      const std::vector<std::string>& session_args, int next_fd);

// The host path a configured path binds: its resolved form when gathered, else itself.
std::string resolved_or_same(const std::map<std::string, std::string>& resolved, const std::string& path);

}  // namespace cordon
