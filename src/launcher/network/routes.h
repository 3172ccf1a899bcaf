// The egress jail's routes inside the holder's network namespace: programmed over netlink
// (libmnl, no `ip` subprocess) and read back until the kernel's state equals the plan exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "common/netlink.h"
#include "launcher/network/jail_plan.h"

namespace cordon::jail {

// The exact main-table content for a plan, given the interface pasta created (`oif`).
// The default route and the allow-list punches go via the gateway flagged on-link, without a
// /32 route to the gateway itself: the gateway's address stays inside a blocked prefix, so the
// sandbox can route through the router but cannot talk to the router.
std::vector<netlink::Route> intended_routes(const JailPlan& plan, int oif);

// In the holder, after pasta attached: takes pasta's interface from the default route it
// configured (its gateway must equal the plan's), flushes the main table, adds every intended
// route, disables IPv6, then verifies. Any failure throws cordon::Error naming the step and
// the kernel's message; the caller must then not start the sandbox.
void program_jail_network(const JailPlan& plan);

// Read-back. Throws cordon::Error unless: the IPv4 main table equals `expected` (nothing extra,
// nothing missing, all ours), no other table but `local` holds routes (and it only local and
// broadcast ones), the IPv4 rules are the kernel's three defaults, and no IPv6 address or
// route exists.
void verify_jail_network(netlink::Socket& nl, const std::vector<netlink::Route>& expected);

}  // namespace cordon::jail
