// `cordon verify [--deep]`: launch a sandbox like `run` with cordon-battery as its command;
// with --deep and every check passing, launch again with cordon-probe against bait the
// launcher sets up outside. The exit status is the battery's FAIL count (then the probes').
#pragma once

#include "launcher/inputs/config.h"
#include "launcher/plan/session_options.h"

namespace cordon {

// The caller holds termination signals blocked (TerminationSignalsBlocked).
int verify_command(const Config& config, SessionOptions options, bool deep);

}  // namespace cordon
