// Runs each probe in a forked child of its own process group, with a time limit: a probe
// that hangs is killed (with everything it started) and reported INCONCLUSIVE, one that
// crashes is INCONCLUSIVE, and nothing a probe changes in its own process (namespaces,
// credentials, tracees) leaks into the next one.
#pragma once

#include <vector>

#include "probe/context.h"
#include "probe/probe.h"

namespace cordon::probe {

ProbeResult run_one(const Context& ctx, const ProbeDef& def, int timeout_ms);
std::vector<ProbeResult> run_probes(const Context& ctx, const std::vector<const ProbeDef*>& selected);

}  // namespace cordon::probe
