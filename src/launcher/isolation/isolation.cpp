#include "launcher/isolation/isolation.h"

namespace cordon {

IsolationSection plan_isolation(const FilesystemConfig& filesystem, const AgentProfile& profile) {
  IsolationSection s;
  s.allow_ptrace = profile.allow_ptrace;
  s.session_init = filesystem.proc != ProcMode::HostReadOnly;  // the host's /proc stays the host's
  return s;
}

std::vector<std::string> isolation_args(const IsolationSection& s) {
  std::vector<std::string> a = {"--unshare-user"};
  if (s.unshare_pid) a.emplace_back("--unshare-pid");
  if (s.unshare_ipc) a.emplace_back("--unshare-ipc");
  if (s.unshare_uts) a.insert(a.end(), {"--unshare-uts", "--hostname", "cordon"});
  // A new cgroup namespace where the kernel has them: the sandbox sees its own cgroup as /.
  a.emplace_back("--unshare-cgroup-try");
  if (s.disable_userns) a.emplace_back("--disable-userns");
  if (s.cap_drop) a.insert(a.end(), {"--cap-drop", "ALL"});
  // bwrap's monitor dies with its parent, and the sandbox with it.
  a.emplace_back("--die-with-parent");
  return a;
}

}  // namespace cordon
