// Check 32: the agent's control entries (settings, hooks, commands, plugins, its own unpacked
// executables: common/agent_control.h) are read-only here, and no executable a process of the
// session has mapped could be replaced from inside where the replacement would outlive the
// session. Written inside, either would run the next time the agent starts outside cordon.
#include <sys/stat.h>

#include <string>
#include <vector>

#include "battery/check.h"
#include "battery/sys.h"
#include "common/agent_control.h"
#include "common/paths.h"
#include "common/proc_maps.h"

namespace cordon::battery {
namespace {

// Why `path` (a control entry) is not read-only here; "" when it is.
std::string control_problem(const Context& c, const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    // Absent: harmless unless the sandbox could create it, in a directory that outlives it.
    const std::string parent = parent_dir(path);
    const std::string real_parent = real_path(parent);
    const Mount* m = c.mounts.containing(real_parent.empty() ? parent : real_parent);
    if (writable(parent) && m && m->fstype != "tmpfs") return path + " is missing and can be created";
    return "";
  }
  const std::string real = real_path(path);
  if (S_ISLNK(st.st_mode) || real.empty()) return path + " is a symbolic link";
  if (writable(real)) return path + " is writable";
  const Mount* m = c.mounts.containing(real);
  if (!m || !m->read_only()) return path + " is on a read-write mount (read-only only through its permissions)";
  return "";
}

// Why the executable at `path`, mapped by a process here, could be replaced by something the
// next session or the host would run; "" when it cannot. The workspace is the project's own
// (what is built there is run there by design) and a tmpfs vanishes with the session.
std::string executable_problem(const Context& c, const std::string& path) {
  if (c.session && path_within(path, c.session->workspace)) return "";
  const Mount* m = c.mounts.containing(path);
  if (!m || m->fstype == "tmpfs" || m->read_only()) return "";
  // A file bound by itself read-only is its own mount: read-only above. Otherwise the file, or
  // its directory (create, then rename over it), must not be writable.
  if (writable(path)) return path + " is writable";
  if (writable(parent_dir(path))) return path + " lies in the writable directory " + parent_dir(path);
  return "";
}

}  // namespace

Outcome check_agent_control(const Context& c) {
  std::vector<std::string> entries;
  std::string whose;
  if (c.session) {
    entries = c.session->agent.control;
    whose = "profile " + c.session->agent.name;
  } else {  // a foreign sandbox: every shipped agent's entries that exist
    for (const auto& agent : agents_with_control_entries())
      for (const auto& e : shipped_control_entries(agent))
        if (exists(c.home + "/" + e)) entries.push_back(e);
    whose = kNoSession;
  }
  std::vector<std::string> problems;
  for (const auto& e : entries)
    if (std::string why = control_problem(c, c.home + "/" + e); !why.empty()) problems.push_back(why);

  const MappedExecutables executables = mapped_executables();
  for (const auto& path : executables.files)
    if (std::string why = executable_problem(c, path); !why.empty()) problems.push_back("mapped executable " + why);
  if (executables.truncated) problems.emplace_back("the scan of mapped executables stopped early: none ruled out");
  if (!problems.empty()) return fail(join_some(problems));
  return pass(whose + ": " + std::to_string(entries.size()) + " control entries read-only; " +
              std::to_string(executables.files.size()) + " mapped executables not replaceable");
}

}  // namespace cordon::battery
