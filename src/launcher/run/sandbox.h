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
#include "launcher/run/signals.h"

namespace cordon {

// Runs the plan to completion; `stages` run in order around the fork. Throws cordon::Error
// when the sandbox could not be set up (nothing ran) or its teardown could not be verified.
LaunchOutcome run_sandbox(const SandboxPlan& plan, const std::vector<LaunchStage*>& stages = {});

}  // namespace cordon
