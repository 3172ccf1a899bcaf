// Carrying out a plan: generated files become sealed memfds at their planned numbers,
// the seccomp filter is compiled, bwrap is started and supervised.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "launcher/plan/plan.h"
#include "launcher/process/launch_stage.h"
#include "launcher/record/outcome.h"

namespace cordon {

// Runs the plan to completion; `stages` run in order around the fork. Throws cordon::Error
// when the sandbox could not be set up (nothing ran) or its teardown could not be verified.
LaunchOutcome run_sandbox(const SandboxPlan& plan, const std::vector<LaunchStage*>& stages = {});

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

}  // namespace cordon
