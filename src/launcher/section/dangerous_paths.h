// The paths no workspace or writable path may be, contain, or lie in: a read-write bind of any
// of them lets the sandbox change what runs outside it later (system trees, cordon's own
// binaries and state), reach the host's sockets (/tmp, /run), or undo the home inversion.
// Pure: the plan builder calls it with facts gathered beforehand, so tests call it directly.
#pragma once

#include <string>
#include <vector>

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

}  // namespace cordon
