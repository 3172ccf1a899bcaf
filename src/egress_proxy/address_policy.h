// Which resolved addresses the proxy may connect to. A name on the allow-list must still not
// lead into the host's own world: loopback, "this network", the fixed blackholes (RFC 1918,
// CGNAT, Azure's wireserver) and unreachable ranges (link-local, cloud metadata), multicast
// and the reserved/broadcast block, and every --refuse CIDR (the launcher passes the host's
// connected subnets). An allow IP rule covering the address exempts it. Pure code.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/egress_rules.h"
#include "common/ipv4.h"

namespace cordon::egress {

// The ranges refused on every host, whatever the command line says.
const std::vector<Ipv4Prefix>& always_refused();

class AddressPolicy {
 public:
  AddressPolicy(const EgressRules& rules, std::vector<Ipv4Prefix> extra_refused);

  // The refused range holding `address` (nullopt when the proxy may connect to it).
  std::optional<Ipv4Prefix> refusing_range(uint32_t host_order_address, uint16_t port) const;

 private:
  const EgressRules& rules_;
  std::vector<Ipv4Prefix> refused_;
};

}  // namespace cordon::egress
