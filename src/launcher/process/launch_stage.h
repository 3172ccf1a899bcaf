// The interface of a mechanism that must be in place around the launcher's fork, before bwrap
// starts (the egress jail, the session cgroup). It lives here, below the mechanisms, so that
// they implement it without depending on the launch sequence (run/) that drives them.
#pragma once

#include <sys/types.h>

namespace cordon {

// A mechanism that must be in place around the fork, before bwrap starts (the egress jail).
// The forked child runs in_child() and then execs bwrap; the parent runs after_fork().
class LaunchStage {
 public:
  virtual ~LaunchStage() = default;
  // In the forked child, before bwrap is exec'd. Throw cordon::Error to abort: its message
  // reaches the parent, which refuses the launch with it.
  virtual void in_child() = 0;
  // In the parent right after the fork. Throw cordon::Error to abort: the child is killed.
  virtual void after_fork(pid_t child) = 0;
  // After the sandbox has exited: verify teardown. Throw cordon::Error for a loud failure.
  virtual void after_exit() = 0;
};

}  // namespace cordon
