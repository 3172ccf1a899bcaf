#include "launcher/section/dangerous_paths.h"

#include "common/paths.h"

namespace cordon {

std::vector<ProtectedPath> protected_paths(const std::string& home, const std::string& account_home,
                                           const std::string& libexec_dir, const std::string& launcher_dir,
                                           const std::string& state_dir) {
  std::vector<ProtectedPath> out = {{"/", "the root directory", false}};
  // What the host runs and configures from; /var/lib holds every service's state (cordon's too).
  for (const char* tree : {"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/dev",
                           "/proc", "/sys", "/run", "/var/lib", "/var/run", "/var/log", "/var/spool"})
    out.push_back({tree, "a system tree", true, true});
  // Shared by every user and program: their sockets and files sit directly in them.
  for (const char* shared : {"/tmp", "/var/tmp", "/dev/shm"})
    out.push_back({shared, "a shared temporary directory", false});
  if (!home.empty()) out.push_back({home, "your home directory", false});
  if (!account_home.empty()) out.push_back({account_home, "your account's home directory", false});
  if (!libexec_dir.empty()) out.push_back({libexec_dir, "cordon's helper directory", true});
  if (!launcher_dir.empty()) out.push_back({launcher_dir, "the directory of the cordon binary", true});
  if (!state_dir.empty()) out.push_back({state_dir, "cordon's state directory", true});
  return out;
}

std::string why_not_writable(const std::string& path, const std::string& home,
                             const std::vector<ProtectedPath>& protected_list) {
  // A home inside a system tree (a CI runner's /var/lib/jenkins) still holds projects.
  const bool in_home = !home.empty() && path != home && path_within(path, home);
  for (const auto& p : protected_list) {
    if (path == p.path) return "is " + p.what + " (" + p.path + ")";
    if (path_within(p.path, path)) return "contains " + p.what + " (" + p.path + ")";
    if (p.inside_too && path_within(path, p.path) && !(in_home && p.system_tree))
      return "lies in " + p.what + " (" + p.path + ")";
  }
  return "";
}

}  // namespace cordon
