#include "egress_proxy/address_policy.h"

#include <gtest/gtest.h>

namespace cordon::egress {
namespace {

uint32_t ip(const char* text) { return *parse_ipv4_address(text, nullptr); }

TEST(AddressPolicy, RefusesEachFixedRange) {
  EgressRules rules({"*.test"}, {});
  AddressPolicy policy(rules, {});
  for (const char* a : {"127.0.0.1", "127.255.255.254", "0.0.0.0", "0.1.2.3", "10.1.2.3", "172.16.5.5",
                        "172.31.255.255", "192.168.7.7", "100.64.1.1", "100.127.255.255", "168.63.129.16",
                        "169.254.169.254", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255"})
    EXPECT_TRUE(policy.refusing_range(ip(a), 443)) << a;
  for (const char* a : {"203.0.113.10", "198.51.100.7", "8.8.8.8", "172.32.0.1", "100.128.0.1", "168.63.129.17"})
    EXPECT_FALSE(policy.refusing_range(ip(a), 443)) << a;
  EXPECT_EQ(policy.refusing_range(ip("10.1.2.3"), 80)->str(), "10.0.0.0/8");
}

TEST(AddressPolicy, RefusesTheGivenHostSubnets) {
  EgressRules rules({"*.test"}, {});
  AddressPolicy policy(rules, {Ipv4Prefix{ip("192.0.2.0"), 24}});
  EXPECT_EQ(policy.refusing_range(ip("192.0.2.77"), 443)->str(), "192.0.2.0/24");
  EXPECT_FALSE(policy.refusing_range(ip("192.0.3.1"), 443));
}

TEST(AddressPolicy, AnAllowIpRuleExemptsItsAddressesOnItsPorts) {
  EgressRules rules({"*.test", "10.9.9.9", "192.0.2.0/28:8080"}, {});
  AddressPolicy policy(rules, {Ipv4Prefix{ip("192.0.2.0"), 24}});
  EXPECT_FALSE(policy.refusing_range(ip("10.9.9.9"), 443));
  EXPECT_TRUE(policy.refusing_range(ip("10.9.9.8"), 443));
  EXPECT_FALSE(policy.refusing_range(ip("192.0.2.5"), 8080));
  EXPECT_TRUE(policy.refusing_range(ip("192.0.2.5"), 443));
  EXPECT_TRUE(policy.refusing_range(ip("192.0.2.77"), 8080));
}

}  // namespace
}  // namespace cordon::egress
