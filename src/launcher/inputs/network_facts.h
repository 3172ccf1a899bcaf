// What the host's network looks like, read once before planning: the connected subnets, the
// default route and the resolver configuration. Gathered over netlink dumps and from
// /etc/resolv.conf: nothing is sent. The network plan (network/) is made from these facts.
#pragma once

#include <string>
#include <vector>

#include "common/ipv4.h"

namespace cordon {

struct NetworkFacts {
  std::vector<Ipv4Prefix> connected;  // subnets of the host's IPv4 addresses (non-loopback)
  // Every IPv4 address of the host itself, on any interface (the loopback device's included,
  // where services bind addresses of their own), whatever its prefix length, as a /32; not
  // 127.0.0.0/8, which inside a namespace is the namespace's own. A /32 on a cloud VM's
  // interface or an address on `lo` has no connected subnet around it to block.
  std::vector<Ipv4Prefix> host_addresses;
  std::string default_gateway;                  // IPv4 of the host's default route, "" if none
  std::string default_interface;                // its interface name
  std::vector<std::string> resolvers;           // nameserver lines of the host's /etc/resolv.conf
  std::vector<std::string> resolv_extra_lines;  // its search / options lines, kept as-is
};

// Fills facts.resolvers / facts.resolv_extra_lines from resolv.conf text (search, domain and
// options lines are kept as-is). Pure.
void parse_resolv_conf(const std::string& text, NetworkFacts& facts);

// Gathers NetworkFacts from the launcher's own namespace (netlink dumps + /etc/resolv.conf).
NetworkFacts gather_network_facts();

}  // namespace cordon
