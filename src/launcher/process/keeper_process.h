// A keeper: a small process forked to act for the launcher once it is dead. It waits on a pipe
// only the launcher writes: dismissed (one byte), it exits; at end-of-file (the launcher died,
// SIGKILL included) it runs its one action, then exits. It is in a session and process group
// of its own (a SIGKILL of the launcher's whole group does not reach it), ignores the
// terminal's hangup and job-control signals, and holds only the descriptors it was given (at
// 3, 4, ...) and the pipe's read end: not the launcher's standard streams (a pipe's reader must
// see its end when cordon ends), no state file's lock, no end of a pty. The terminal keeper
// (terminal/terminal_keeper.h) and the session keeper (record/session_keeper.h) are two.
#pragma once

#include <linux/filter.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "common/landlock_helper.h"
#include "common/unique_fd.h"

namespace cordon {

// What the keeper may still do once it is in its own session (docs/landlock.md "The helpers
// outside the sandbox"). What the kernel lacks (no Landlock, no scopes before ABI 6) is not
// entered; nothing fails for it.
struct KeeperConfinement {
  bool handle_fs = false;                   // Landlock: the ABI's filesystem rights handled...
  uint64_t unhandled_fs = 0;                // ...but these, left to the mounts and modes (reading)
  std::vector<landlock::PathGrant> grants;  // ...and only these open (none: only the fds it holds)
  uint64_t scopes = 0;                      // Landlock scopes (common/landlock_abi.h), masked to the kernel's
  bool helper_filter = false;               // the helpers' seccomp filter (common/seccomp_policy.h build_helper_rules)
  bool drop_capabilities = false;           // every capability given up first (common/drop_capabilities.h)
  // Entered once the launcher died, before the action, instead of before the wait: the paths
  // the action works on exist by then (pasta's dir, the session's cgroups). While it waits the
  // keeper reads one pipe and nothing else, so nothing can steer it before the domain.
  bool at_action = false;
};

// The terminal keeper's: it only writes to and sets the terminal it holds at 3 (no capability
// needed).
KeeperConfinement terminal_keeper_confinement();
// The session keeper's (record/sweep_reach.h says what `reach` holds): its sweep reads what it
// audits, and writes only beneath `reach`; it execs nothing, connects to no abstract socket,
// and signals no process outside its domain when `signal_scope` (no v1 cgroup, whose members
// it kills by pid). It keeps its capabilities: root's sweep removes root's cgroups and
// tightens any user's files.
KeeperConfinement session_keeper_confinement(std::vector<landlock::PathGrant> reach, bool signal_scope);

class KeeperProcess {
 public:
  // Forks the keeper, named `name` (at most 15 bytes). In it, `kept` are at 3, 4, ... in that
  // order, and `on_launcher_death` runs in the forked child after end-of-file, then it exits.
  // `confinement` is entered in the child after setsid() (or before the action). Throws cordon::Error (`what` names
  // it) when the pipe, the filter or the fork fails.
  KeeperProcess(const char* name, const char* what, const std::vector<int>& kept,
                const std::function<void()>& on_launcher_death, const KeeperConfinement& confinement = {});
  // Not dismissed: the keeper is let go (its write end closed), not waited for.
  ~KeeperProcess();
  KeeperProcess(const KeeperProcess&) = delete;
  KeeperProcess& operator=(const KeeperProcess&) = delete;

  // The keeper exits without acting; reaped here.
  void dismiss();
  pid_t pid() const { return pid_; }

 private:
  UniqueFd alive_;  // the write end; the keeper holds the read end
  pid_t pid_ = -1;
};

}  // namespace cordon
