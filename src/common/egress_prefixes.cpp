#include "common/egress_prefixes.h"

namespace cordon {

const std::vector<Ipv4Prefix>& fixed_blackholes() {
  static const std::vector<Ipv4Prefix> prefixes = {{0x0A000000u, 8},    // 10.0.0.0/8
                                                   {0xAC100000u, 12},   // 172.16.0.0/12
                                                   {0xC0A80000u, 16},   // 192.168.0.0/16
                                                   {0x64400000u, 10},   // 100.64.0.0/10
                                                   {0xA83F8110u, 32}};  // 168.63.129.16/32
  return prefixes;
}

const std::vector<Ipv4Prefix>& fixed_unreachable() {
  static const std::vector<Ipv4Prefix> prefixes = {{0xA9FE0000u, 16}};  // 169.254.0.0/16
  return prefixes;
}

}  // namespace cordon
