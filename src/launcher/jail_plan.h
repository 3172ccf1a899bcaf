// The egress jail's intended network state, computed purely from host network facts and
// config: which prefixes are blackholed / unreachable, which /32s are punched, the gateway,
// the DNS forwarder address. The launcher programs exactly this and verifies it read back.
#pragma once

#include <string>
#include <vector>

#include "launcher/config.h"
#include "launcher/ipv4.h"

namespace cordon::jail {

// What the host's network looks like (gathered over netlink dumps; nothing is sent).
struct NetworkFacts {
  std::vector<Ipv4Prefix> connected;   // subnets of the host's IPv4 addresses (non-loopback)
  std::string default_gateway;         // IPv4 of the host's default route, "" if none
  std::string default_interface;       // its interface name
  std::vector<std::string> resolvers;  // nameserver lines of the host's /etc/resolv.conf
  std::vector<std::string> resolv_extra_lines;  // its search / options lines, kept as-is
};

struct JailPlan {
  std::vector<Ipv4Prefix> blackholes;    // RFC1918, CGNAT, 168.63.129.16/32, connected subnets
  std::vector<Ipv4Prefix> unreachable;   // 169.254.0.0/16
  std::vector<Ipv4Prefix> allow;         // /32 punches: DNS forwarder + configured allow_ip
  std::string gateway;                   // the namespace's gateway (as pasta configures it)
  std::string dns_forward;               // the forwarder address the sandbox resolves through
  std::string resolv_conf;               // content bound over /etc/resolv.conf
};

// Pure. Throws cordon::Error when no forwarder address can be chosen or config conflicts.
JailPlan plan_jail(const Config& config, const NetworkFacts& facts);

// Gathers NetworkFacts from the launcher's own namespace (netlink dumps + /etc/resolv.conf).
NetworkFacts gather_network_facts();

}  // namespace cordon::jail
