// The destinations the egress jail blocks on every host, whatever the host's own routes:
// the launcher programs them, battery check 19 looks the routes up itself and expects each.
#pragma once

#include <vector>

#include "common/ipv4.h"

namespace cordon {

// Blackholed: RFC 1918, CGNAT (RFC 6598), Azure's wireserver (168.63.129.16/32).
const std::vector<Ipv4Prefix>& fixed_blackholes();
// Unreachable: link-local (169.254.0.0/16), where cloud metadata services live.
const std::vector<Ipv4Prefix>& fixed_unreachable();

}  // namespace cordon
