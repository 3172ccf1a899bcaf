#include <gtest/gtest.h>

#include "common/egress_prefixes.h"
#include "common/ipv4.h"

namespace cordon {
namespace {

std::optional<uint32_t> address(const std::string& text) { return parse_ipv4_address(text, nullptr); }
std::optional<Ipv4Prefix> cidr(const std::string& text) { return parse_ipv4_cidr(text, nullptr); }

TEST(Ipv4, ParsesAndFormatsAddresses) {
  EXPECT_EQ(address("0.0.0.0"), 0u);
  EXPECT_EQ(address("255.255.255.255"), 0xFFFFFFFFu);
  EXPECT_EQ(address("10.1.2.3"), 0x0A010203u);
  EXPECT_EQ(ipv4_to_string(0x0A010203u), "10.1.2.3");
  EXPECT_EQ(ipv4_to_string(0), "0.0.0.0");
  EXPECT_EQ(ipv4_to_string(0xFFFFFFFFu), "255.255.255.255");
  for (uint32_t a : {0u, 1u, 0x7F000001u, 0xA9FEA9FEu, 0xFFFFFFFFu}) EXPECT_EQ(address(ipv4_to_string(a)), a);
}

TEST(Ipv4, RejectsMalformedAddresses) {
  std::string problem;
  for (const char* bad : {"", "1.2.3", "1.2.3.4.5", "256.0.0.1", "1.2.3.-1", "a.b.c.d", " 1.2.3.4", "1.2.3.4 ",
                          "1..2.3", "0x7f.0.0.1", "::1", "1.2.3.4/32"}) {
    problem.clear();
    EXPECT_FALSE(parse_ipv4_address(bad, &problem)) << bad;
    EXPECT_FALSE(problem.empty()) << bad;
  }
}

TEST(Ipv4, OrZeroReadsAMalformedAddressAsNone) {
  EXPECT_EQ(ipv4_or_zero("10.1.2.3"), 0x0a010203u);
  EXPECT_EQ(ipv4_or_zero(""), 0u);
  EXPECT_EQ(ipv4_or_zero("10.1.2"), 0u);
  EXPECT_EQ(ipv4_or_zero("10.1.2.3/8"), 0u);
}

TEST(Ipv4, ParsesPrefixes) {
  EXPECT_EQ(cidr("10.0.0.0/8"), (Ipv4Prefix{0x0A000000u, 8}));
  EXPECT_EQ(cidr("1.2.3.4"), (Ipv4Prefix{0x01020304u, 32}));
  EXPECT_EQ(cidr("0.0.0.0/0"), (Ipv4Prefix{0, 0}));
  EXPECT_EQ(cidr("168.63.129.16/32")->str(), "168.63.129.16/32");
  std::string problem;
  EXPECT_FALSE(parse_ipv4_cidr("10.0.0.1/8", &problem));
  EXPECT_NE(problem.find("10.0.0.0/8"), std::string::npos) << problem;  // suggests the network
  for (const char* bad : {"10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "10.0.0.0/ 8", "10.0.0.0/008"})
    EXPECT_FALSE(cidr(bad)) << bad;
}

TEST(Ipv4, ContainmentAtTheEdges) {
  const Ipv4Prefix private172 = *cidr("172.16.0.0/12");
  EXPECT_TRUE(private172.contains(*address("172.16.0.0")));
  EXPECT_TRUE(private172.contains(*address("172.31.255.255")));
  EXPECT_FALSE(private172.contains(*address("172.32.0.0")));
  EXPECT_FALSE(private172.contains(*address("172.15.255.255")));
  EXPECT_TRUE(cidr("0.0.0.0/0")->contains(0xFFFFFFFFu));
  EXPECT_TRUE(cidr("1.2.3.4/32")->contains(0x01020304u));
  EXPECT_FALSE(cidr("1.2.3.4/32")->contains(0x01020305u));
  EXPECT_TRUE(cidr("10.0.0.0/8")->overlaps(*cidr("10.1.0.0/16")));
  EXPECT_TRUE(cidr("10.1.0.0/16")->overlaps(*cidr("10.0.0.0/8")));
  EXPECT_FALSE(cidr("10.0.0.0/8")->overlaps(*cidr("11.0.0.0/8")));
}

TEST(Ipv4, SubnetOfAnInterfaceAddress) {
  EXPECT_EQ(ipv4_subnet_of(0xC0000202u, 24), (Ipv4Prefix{0xC0000200u, 24}));
  EXPECT_EQ(ipv4_subnet_of(0xC0000202u, 32), (Ipv4Prefix{0xC0000202u, 32}));
  EXPECT_EQ(ipv4_subnet_of(0xC0000202u, 0), (Ipv4Prefix{0, 0}));
  EXPECT_EQ(ipv4_subnet_of(0xAC1F0001u, 12).str(), "172.16.0.0/12");
}

TEST(EgressPrefixes, FixedListsAreWellFormed) {
  std::vector<std::string> blackholes;
  for (const auto& p : fixed_blackholes()) {
    EXPECT_EQ(cidr(p.str()), p) << p.str();  // host bits zero
    blackholes.push_back(p.str());
  }
  EXPECT_EQ(blackholes, (std::vector<std::string>{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
                                                  "168.63.129.16/32"}));
  ASSERT_EQ(fixed_unreachable().size(), 1u);
  EXPECT_EQ(fixed_unreachable()[0].str(), "169.254.0.0/16");
}

}  // namespace
}  // namespace cordon
