// What `cordon status` says of a session's network (describe_network).
#include "launcher/network/network_plan.h"

#include <gtest/gtest.h>

namespace cordon::network {
namespace {

// The DNS forwarder's /32 is punched through like an allow entry, but it is not one the
// operator allowed: "1 allowed IPs" for a jail that allows nothing misled.
TEST(DescribeNetwork, TheDnsForwardersPunchIsNotCountedAsAnAllowedRange) {
  NetworkIntent n;
  n.mode = NetworkMode::EgressJail;
  n.blackholes = {"10.0.0.0/8", "172.16.0.0/12"};
  n.dns_forward = "198.51.100.53";
  n.allow = {"198.51.100.53/32"};
  EXPECT_EQ(describe_network(n),
            "egress jail: 2 private/connected ranges blackholed, link-local unreachable, no range allowed through, "
            "DNS via 198.51.100.53");
  n.allow.push_back("10.9.9.9/32");
  EXPECT_NE(describe_network(n).find("1 range(s) allowed through"), std::string::npos) << describe_network(n);
}

}  // namespace
}  // namespace cordon::network
