// The paths no workspace or writable path may be, contain, or lie in: a read-write bind of any
// of them lets the sandbox change what runs outside it later (system trees, cordon's own
// binaries and state), reach the host's sockets (/tmp, /run), or undo the home inversion.
// Pure: the plan builder calls it with facts gathered beforehand, so tests call it directly.
#pragma once

#include <string>
#include <vector>

#include "launcher/inputs/host_facts.h"

namespace cordon {

struct ProtectedPath {
  std::string path;
  std::string what;          // for the message: "a system tree", "your home directory", ...
  bool inside_too = false;   // paths below it are refused as well (not only it and its parents)
  bool system_tree = false;  // a path inside the home is not refused for lying in it
};

// The system trees, the shared temporary directories, and the given host-specific paths.
std::vector<ProtectedPath> protected_paths(const std::string& home, const std::string& account_home,
                                           const std::string& libexec_dir, const std::string& launcher_dir,
                                           const std::string& state_dir);

// Why `path` (absolute, resolved) may not be bound read-write: "is ...", "contains ...",
// "lies in ..."; "" when it may. A path inside `home` may lie in a system tree (a CI runner's
// home under /var/lib), never in cordon's own directories.
std::string why_not_writable(const std::string& path, const std::string& home,
                             const std::vector<ProtectedPath>& protected_list);

// why_not_writable for `path` by identity, not only by name: under every other name the
// host's mounts give it (facts.path_names), by the kernel's identity against the protected
// paths and their parents (facts.path_ids), and for each writable mount below it, which a
// recursive bind carries into the sandbox. "" when it may be bound read-write. Pure.
std::string why_not_writable_anywhere(const std::string& path, const HostFacts& facts,
                                      const std::vector<ProtectedPath>& protected_list);

// Refuses a path holding a newline: the mount table, the session file and the records are
// line-based, and a name that breaks a line could forge one. `what`: "workspace", "writable".
void refuse_newlines(const std::string& what, const std::string& path);

}  // namespace cordon
