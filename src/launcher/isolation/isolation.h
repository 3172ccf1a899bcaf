// What every sandbox gets whatever it runs: its own user, pid, ipc, uts and cgroup namespaces,
// no nested user namespaces, no capabilities, bwrap tied to the launcher, the session's own
// init (process/session_init.h), an empty environment to start from, and the seccomp filter
// (seccomp/policy.h, compiled by the launcher). One section of the plan, as data: the assembler renders it, and a test
// weakening (plan/weaken.h) turns one part off here, never by editing bwrap's argv.
#pragma once

#include <string>
#include <vector>

#include "launcher/inputs/config.h"

namespace cordon {

struct IsolationSection {
  bool unshare_pid = true;
  bool unshare_ipc = true;
  bool unshare_uts = true;     // and the hostname "cordon"
  bool disable_userns = true;  // bwrap's --disable-userns (the filter refuses them too)
  bool cap_drop = true;        // --cap-drop ALL: bwrap started as namespace root keeps them otherwise
  bool clearenv = true;        // bwrap starts the command from --clearenv (the plan's variables only)
  bool seccomp = true;         // the filter at kSeccompFd (seccomp/policy.h)
  bool allow_ptrace = false;   // the filter keeps ptrace for debuggers (agents.*.allow_ptrace)
  // The session's own pid namespace and init, between the launcher's child and bwrap. Off with
  // proc = "host-ro": the host's /proc, bound in, must be the host's, not the session
  // namespace's; that weaker mode keeps bwrap's --die-with-parent as the only tie between the
  // sandbox and the launcher.
  bool session_init = true;
};

// Pure: proc = "host-ro" runs without the session's init; a profile may keep ptrace.
IsolationSection plan_isolation(const FilesystemConfig& filesystem, const AgentProfile& profile);

// bwrap's namespace and privilege arguments, first in its argv.
std::vector<std::string> isolation_args(const IsolationSection& isolation);

}  // namespace cordon
