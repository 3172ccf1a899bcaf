// The launch sequence of one session, in one place:
//   host facts -> egress jail (prerequisites, plan) -> sandbox plan -> manifest -> session
//   cgroup -> run (fork, stages, bwrap, supervision) -> teardown -> receipt.
// The manifest is written before anything runs (no record, no run); the receipt when it
// ends, including a refused or failed launch.
#pragma once

#include "launcher/inputs/config.h"
#include "launcher/plan/session_options.h"

namespace cordon {

// Runs one session to completion and returns cordon's exit status for it (the command's, or
// kExitLaunchRefused for a teardown that could not be verified). Throws cordon::Error when
// the launch was refused; the receipt records that too. `is_verify` records the battery's
// outcome as the last verify. The caller holds termination signals blocked
// (TerminationSignalsBlocked) for the whole call.
int launch_session(const Config& config, const SessionOptions& options, bool is_verify = false);

}  // namespace cordon
