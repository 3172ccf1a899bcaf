// The bounds on the allowlist proxy's decisions, shared by the proxy that writes them
// (egress_proxy/decision_log.h) and the launcher that reads them into the receipt
// (launcher/network/egress_decisions.h): what the sandbox does decides how many decisions
// there are (a flood of denied requests), and neither the proxy's log nor the record may grow
// with it.
#pragma once

#include <cstddef>

namespace cordon {

// The proxy writes whole decision lines up to this many bytes of log; past it, it only counts
// (by destination) and writes the counts as one last line when it stops. The launcher keeps
// fewer lines than this in the receipt (kKeptDecisionBytes), so the bound never hides a
// decision the receipt would have kept whole.
inline constexpr size_t kDecisionLogBytes = size_t{1} << 20;  // 1 MiB

// Decisions summed up by destination: at most this many destinations, each name cut to
// kSummaryDestinationBytes (marked "..."); the rest counted together.
inline constexpr size_t kSummaryDestinations = 100;
inline constexpr size_t kSummaryDestinationBytes = 256;

}  // namespace cordon
