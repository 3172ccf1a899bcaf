// Carrying out a plan: generated files become sealed memfds at their planned numbers,
// the seccomp filter is compiled, bwrap is started and supervised.
#pragma once

#include "launcher/plan.h"

namespace cordon {

// Runs the plan to completion and returns the exit status to propagate: the command's own
// status, or 128+N when it (or the sandbox) died of signal N. Throws cordon::Error when the
// sandbox could not be set up (nothing ran).
int run_sandbox(const SandboxPlan& plan);

}  // namespace cordon
