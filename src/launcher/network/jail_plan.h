// The egress jail's intended network state, computed purely from host network facts and
// config: which prefixes are blackholed / unreachable, which /32s are punched, the gateway,
// the DNS forwarder address. The launcher programs exactly this and verifies it read back.
#pragma once

#include <string>
#include <vector>

#include "common/egress_prefixes.h"
#include "common/ipv4.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/network_facts.h"

namespace cordon::jail {

struct JailPlan {
  std::vector<Ipv4Prefix> blackholes;      // RFC1918, CGNAT, 168.63.129.16/32, connected subnets
  std::vector<Ipv4Prefix> unreachable;     // 169.254.0.0/16
  std::vector<Ipv4Prefix> allow;           // /32 punches: DNS forwarder + configured allow_ip
  std::vector<Ipv4Prefix> host_addresses;  // the /32 blackholes of the host's own addresses (also in blackholes)
  std::string gateway;                     // the namespace's gateway (as pasta configures it)
  std::string dns_forward;                 // the forwarder address the sandbox resolves through
  std::string resolv_conf;                 // content bound over /etc/resolv.conf
};

// The addresses `dns_forward = "auto"` tries, in this order: one per TEST-NET range
// (RFC 5737), never routed on the internet. The first outside every connected subnet and
// every blocked prefix wins (on a host in 192.0.2.0/24 that is 198.51.100.53).
inline constexpr const char* kForwarderCandidates[] = {"192.0.2.53", "198.51.100.53", "203.0.113.53"};

// Pure. Throws cordon::Error when no forwarder address can be chosen or config conflicts.
// Rules beyond the fixed lists (common/egress_prefixes.h):
//  - each connected subnet is blackholed (exact duplicates of a fixed prefix are skipped);
//  - each address of the host itself (NetworkFacts::host_addresses) is blackholed as a /32 when
//    no blocked prefix covers it: pasta would connect to it from the host, where it is local
//    (a service bound to it, or to 0.0.0.0, answers);
//  - the gateway's own address is blackholed as a /32 when no blocked prefix covers it, so
//    the router itself (its admin page, its resolver) is not reachable, only routed through;
//  - an allow_ip entry is a more specific route that wins over a covering block; one equal
//    to a blocked prefix replaces that block; 0.0.0.0/0 is refused (that is egress_jail=false);
//  - an explicit dns_forward must lie outside every connected subnet and every blocked prefix:
//    pasta forwards every other port of that address to the real network, so a forwarder
//    inside a private range would open that host; TEST-NET addresses are the safe choice.
// A refusal caused by a value of [network] (an allow_ip of 0.0.0.0/0, a dns_forward that
// cannot serve) names where `source` says the file set it, and exits 2.
JailPlan plan_jail(const NetworkConfig& config, const ConfigSource& source, const NetworkFacts& facts);

}  // namespace cordon::jail
