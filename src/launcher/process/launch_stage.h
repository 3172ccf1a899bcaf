// The interface of a mechanism that must be in place around the launcher's fork, before bwrap
// starts (the egress jail, the session cgroup). It lives here, below the mechanisms, so that
// they implement it without depending on the launch sequence (run/) that drives them.
#pragma once

#include <sys/types.h>

namespace cordon {

// What the forked child tells a stage about the launch it is part of.
struct ChildSide {
  // Where a process the stage forks sends its "what\nfix" refusal (refuse_from_child).
  int error_fd = -1;
  // bwrap waits at the command gate (its --block-fd) until the launcher has seen every
  // stage's after_fork() succeed: a stage may then finish its work in a process of its own
  // while bwrap sets up, instead of holding up the exec of bwrap.
  bool command_gated = false;
  // The child was born in the stage's cgroup (clone3 with CLONE_INTO_CGROUP): no join needed.
  bool cloned_into_cgroup = false;
};

// A mechanism that must be in place around the fork, before bwrap starts (the egress jail).
// The forked child runs in_child() and then execs bwrap; the parent runs after_fork().
class LaunchStage {
 public:
  virtual ~LaunchStage() = default;
  // In the forked child, before bwrap is exec'd. Throw cordon::Error to abort: its message
  // reaches the parent, which refuses the launch with it.
  virtual void in_child(const ChildSide& side) = 0;
  // In the parent right after the fork. Throw cordon::Error to abort: the child is killed.
  // Without a command gate, bwrap may already run when this returns: a stage whose work must
  // precede the command makes the child wait for it in in_child().
  virtual void after_fork(pid_t child) = 0;
  // After the sandbox has exited: verify teardown. Throw cordon::Error for a loud failure.
  virtual void after_exit() = 0;
  // A cgroup v2 directory the child should be born in (clone3 CLONE_INTO_CGROUP), or -1.
  virtual int clone_into_cgroup_fd() const { return -1; }
};

}  // namespace cordon
