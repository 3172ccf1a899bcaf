// The host process the caller started outside the sandbox (--target-pid PID[:START]).
// Inside a PID namespace the same number may belong to an unrelated sandbox process; the
// start time tells them apart, and a mismatch is reported as "not addressable" without any
// signal or read being sent to the namesake.
#pragma once

#include <sys/types.h>

#include <string>

#include "probe/context.h"

namespace cordon::probe {

struct TargetView {
  enum class State { None, NotAddressable, Candidate };
  State state = State::None;
  pid_t pid = 0;
  std::string why;  // for NotAddressable: the reason; for Candidate: identity caveats
};

TargetView resolve_target(const Context& ctx);

}  // namespace cordon::probe
