#include "egress_proxy/address_policy.h"

#include "common/egress_prefixes.h"

namespace cordon::egress {

const std::vector<Ipv4Prefix>& always_refused() {
  static const std::vector<Ipv4Prefix> prefixes = [] {
    std::vector<Ipv4Prefix> p = {{0x7F000000u, 8},   // 127.0.0.0/8 loopback
                                 {0x00000000u, 8},   // 0.0.0.0/8 "this network"
                                 {0xE0000000u, 4},   // 224.0.0.0/4 multicast
                                 {0xF0000000u, 4}};  // 240.0.0.0/4 reserved, broadcast
    p.insert(p.end(), fixed_blackholes().begin(), fixed_blackholes().end());
    p.insert(p.end(), fixed_unreachable().begin(), fixed_unreachable().end());
    return p;
  }();
  return prefixes;
}

AddressPolicy::AddressPolicy(const EgressRules& rules, std::vector<Ipv4Prefix> extra_refused)
    : rules_(rules), refused_(always_refused()) {
  refused_.insert(refused_.end(), extra_refused.begin(), extra_refused.end());
}

std::optional<Ipv4Prefix> AddressPolicy::refusing_range(uint32_t address, uint16_t port) const {
  if (rules_.allows_address(address, port)) return std::nullopt;
  for (const auto& prefix : refused_)
    if (prefix.contains(address)) return prefix;
  return std::nullopt;
}

}  // namespace cordon::egress
