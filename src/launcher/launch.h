// Carrying out a plan: generated files become sealed memfds at their planned numbers,
// the seccomp filter is compiled, bwrap is started and supervised.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "launcher/plan.h"

namespace cordon {

// How a launch ended, for the exit status and the teardown receipt.
struct LaunchOutcome {
  int exit_code = 0;             // the command's status, or 128+N for death by signal N
  bool command_ran = false;      // bwrap reported the command's exit
  double duration_seconds = 0;
  std::vector<std::string> survivors;  // session processes alive after the sandbox exited (then killed)
  std::vector<std::string> limit_hits; // budgets the session ran into
};

// Runs the plan to completion; `stages` run in order around the fork. Throws cordon::Error
// when the sandbox could not be set up (nothing ran) or its teardown could not be verified.
LaunchOutcome run_sandbox(const SandboxPlan& plan, const std::vector<class LaunchStage*>& stages = {});

// Holds SIGINT, SIGTERM, SIGHUP and SIGQUIT blocked while it lives: a launch sets up and tears
// down cgroups, pasta and temp files, and a default action in between would kill the launcher
// and leave them behind. Signals that arrive meanwhile stay pending: before the fork,
// run_sandbox stops with "interrupted" (nothing ran); while the sandbox runs it forwards them;
// after teardown they take effect.
class TerminationSignalsBlocked {
 public:
  TerminationSignalsBlocked();
  ~TerminationSignalsBlocked();
  TerminationSignalsBlocked(const TerminationSignalsBlocked&) = delete;
  TerminationSignalsBlocked& operator=(const TerminationSignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

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
