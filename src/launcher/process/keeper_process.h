// A keeper: a small process forked to act for the launcher once it is dead. It waits on a pipe
// only the launcher writes: dismissed (one byte), it exits; at end-of-file (the launcher died,
// SIGKILL included) it runs its one action, then exits. It is in a session and process group
// of its own (a SIGKILL of the launcher's whole group does not reach it), ignores the
// terminal's hangup and job-control signals, and holds only the descriptors it was given (at
// 3, 4, ...) and the pipe's read end: not the launcher's standard streams (a pipe's reader must
// see its end when cordon ends), no state file's lock, no end of a pty. The terminal keeper
// (terminal/terminal_keeper.h) and the session keeper (record/session_keeper.h) are two.
#pragma once

#include <sys/types.h>

#include <functional>
#include <vector>

#include "common/unique_fd.h"

namespace cordon {

class KeeperProcess {
 public:
  // Forks the keeper, named `name` (at most 15 bytes). In it, `kept` are at 3, 4, ... in that
  // order, and `on_launcher_death` runs in the forked child after end-of-file, then it exits.
  // Throws cordon::Error (`what` names it) when the pipe or the fork fails.
  KeeperProcess(const char* name, const char* what, const std::vector<int>& kept,
                const std::function<void()>& on_launcher_death);
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
