// `cordon argv [--json]`: the exact bwrap invocation a run would make; launches nothing.
#pragma once

#include "launcher/plan/plan.h"

namespace cordon {

void print_argv(const SandboxPlan& plan, bool json);

}  // namespace cordon
