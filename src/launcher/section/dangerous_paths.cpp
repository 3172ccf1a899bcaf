#include "launcher/section/dangerous_paths.h"

#include "common/error.h"
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

namespace {

// `path`'s identity against each protected path and each of its parents.
std::string why_by_identity(const std::string& path, const HostFacts& f, const std::vector<ProtectedPath>& list) {
  auto id = f.path_ids.find(path);
  if (id == f.path_ids.end()) return "";
  for (const auto& p : list) {
    for (std::string at = p.path; !at.empty(); at = parent_dir(at)) {
      auto other = f.path_ids.find(at);
      if (other != f.path_ids.end() && other->second == id->second && at != path)
        return (at == p.path ? "is " : "contains ") + p.what + " (" + p.path + ") under another name";
      if (at == "/") break;
    }
  }
  return "";
}

// Under each of its names, then by identity.
std::string why_directory(const std::string& path, const std::vector<std::string>& names, const HostFacts& f,
                          const std::vector<ProtectedPath>& list) {
  for (const auto& name : names)
    if (std::string why = why_not_writable(name, f.home, list); !why.empty())
      return name == path ? why : why + " under another name (" + name + ", the same directory)";
  return why_by_identity(path, f, list);
}

}  // namespace

std::string why_not_writable_anywhere(const std::string& path, const HostFacts& f,
                                      const std::vector<ProtectedPath>& protected_list) {
  auto known = f.path_names.find(path);
  const PathNames names = known != f.path_names.end() ? known->second : PathNames{{path}, {}};
  std::vector<ProtectedPath> home_only;
  for (const auto& p : protected_list)
    if (p.path == f.home || p.path == f.account_home) home_only.push_back(p);
  if (std::string why = why_directory(path, names.names, f, protected_list); !why.empty()) return why;
  for (const auto& submount : names.submounts) {
    const std::string& at = submount.names.front();
    // A writable mount below it comes along writable: it may not be what `path` may not be.
    if (!submount.read_only) {
      if (std::string why = why_directory(at, submount.names, f, protected_list); !why.empty())
        return "has a writable mount at " + at + " that " + why;
      continue;
    }
    // A read-only one is harmless unless it shows the home the sandbox must not see.
    if (std::string why = why_directory(at, submount.names, f, home_only); !why.empty())
      return "has a mount at " + at + " that " + why + ": the sandbox could read your home through it";
  }
  return "";
}

void refuse_newlines(const std::string& what, const std::string& path) {
  if (path.find('\n') != std::string::npos)
    throw Error(what + " path contains a newline: refusing it", "rename the directory");
}

}  // namespace cordon
