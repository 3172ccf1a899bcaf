// The egress jail's plan: pure, table-driven. Which prefixes are blocked, which punched,
// which forwarder address is chosen, and when the plan refuses.
#include "launcher/network/jail_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.h"
#include "launcher/inputs/config.h"
#include "launcher/network/routes.h"

namespace cordon::jail {
namespace {

Ipv4Prefix P(const std::string& text) {
  std::string problem;
  auto p = parse_ipv4_cidr(text, &problem);
  EXPECT_TRUE(p) << text << ": " << problem;
  return p.value_or(Ipv4Prefix{});
}

std::vector<std::string> strs(const std::vector<Ipv4Prefix>& prefixes) {
  std::vector<std::string> out;
  for (const auto& p : prefixes) out.push_back(p.str());
  return out;
}

// This machine's shape: 192.0.2.2/24, gateway 192.0.2.1.
NetworkFacts host_facts() {
  NetworkFacts f;
  f.connected = {P("192.0.2.0/24")};
  f.default_gateway = "192.0.2.1";
  f.default_interface = "eth0";
  f.resolvers = {"10.255.255.53"};
  return f;
}

Config config_with(std::vector<std::string> allow = {}, std::string dns = "auto") {
  Config c = default_config();
  c.source.file = "/etc/cordon/cordon.toml";
  c.network.allow_ip = std::move(allow);
  c.network.dns_forward = std::move(dns);
  return c;
}

// The plan of the [network] section of `c`, whose file path its messages name.
JailPlan plan_jail(const Config& c, const NetworkFacts& f) { return jail::plan_jail(c.network, c.source, f); }

std::string error_of(const Config& c, const NetworkFacts& f) {
  try {
    plan_jail(c, f);
  } catch (const Error& e) {
    return std::string(e.what()) + " || " + e.fix();
  }
  return "";
}

TEST(JailPlan, ExactSetsOnThisMachine) {
  JailPlan plan = plan_jail(config_with(), host_facts());
  EXPECT_EQ(strs(plan.blackholes), (std::vector<std::string>{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
                                                             "100.64.0.0/10", "168.63.129.16/32", "192.0.2.0/24"}));
  EXPECT_EQ(strs(plan.unreachable), (std::vector<std::string>{"169.254.0.0/16"}));
  EXPECT_EQ(strs(plan.allow), (std::vector<std::string>{"198.51.100.53/32"}));
  EXPECT_EQ(plan.gateway, "192.0.2.1");
  EXPECT_EQ(plan.dns_forward, "198.51.100.53");
}

TEST(JailPlan, ForwarderAvoidsConnectedSubnetsInDocumentedOrder) {
  struct Case {
    std::vector<std::string> connected;
    std::string expected;
  } cases[] = {
      {{"198.18.0.0/24"}, "192.0.2.53"},    // nothing collides: the first
      {{"192.0.2.0/24"}, "198.51.100.53"},  // this machine
      {{"192.0.2.0/24", "198.51.100.0/24"}, "203.0.113.53"},
      {{"192.0.0.0/8"}, "198.51.100.53"},    // a wide subnet covering TEST-NET-1
      {{"192.0.2.53/32"}, "198.51.100.53"},  // a point-to-point address
  };
  for (const auto& c : cases) {
    NetworkFacts f = host_facts();
    f.connected.clear();
    for (const auto& s : c.connected) f.connected.push_back(P(s));
    f.default_gateway = "198.18.0.1";
    EXPECT_EQ(plan_jail(config_with(), f).dns_forward, c.expected) << c.connected[0];
  }
}

TEST(JailPlan, NoAutomaticForwarderLeftIsAnError) {
  NetworkFacts f = host_facts();
  f.connected = {P("192.0.2.0/24"), P("198.51.100.0/24"), P("203.0.113.0/24")};
  std::string err = error_of(config_with(), f);
  EXPECT_NE(err.find("every automatic DNS forwarder"), std::string::npos) << err;
  EXPECT_NE(err.find("dns_forward"), std::string::npos) << err;
}

TEST(JailPlan, ExplicitForwarder) {
  EXPECT_EQ(plan_jail(config_with({}, "203.0.113.7"), host_facts()).dns_forward, "203.0.113.7");
  struct Bad {
    std::string address, why;
  } bad[] = {
      {"192.0.2.53", "connected to"},    // the host's own subnet
      {"192.0.2.2", "connected to"},     // the host itself
      {"10.53.0.53", "blocked prefix"},  // would open a LAN host
      {"169.254.169.254", "blocked prefix"}, {"127.0.0.53", "loopback"}, {"224.0.0.251", "multicast"},
  };
  for (const auto& b : bad) {
    std::string err = error_of(config_with({}, b.address), host_facts());
    EXPECT_NE(err.find(b.why), std::string::npos) << b.address << ": " << err;
  }
}

TEST(JailPlan, AllowIpPunchesAfterTheForwarder) {
  JailPlan plan = plan_jail(config_with({"10.9.9.9", "192.168.50.0/24", "198.51.100.53"}), host_facts());
  // The forwarder first, then the configured entries; an entry equal to it is not repeated.
  EXPECT_EQ(strs(plan.allow), (std::vector<std::string>{"198.51.100.53/32", "10.9.9.9/32", "192.168.50.0/24"}));
  EXPECT_EQ(plan.blackholes.size(), 6u);  // punches are more specific routes, blocks stay
}

TEST(JailPlan, AllowEqualToABlockReplacesIt) {
  JailPlan plan = plan_jail(config_with({"172.16.0.0/12"}), host_facts());
  EXPECT_EQ(strs(plan.blackholes), (std::vector<std::string>{"10.0.0.0/8", "192.168.0.0/16", "100.64.0.0/10",
                                                             "168.63.129.16/32", "192.0.2.0/24"}));
  EXPECT_EQ(strs(plan.allow), (std::vector<std::string>{"198.51.100.53/32", "172.16.0.0/12"}));
}

TEST(JailPlan, AllowEverythingIsRefused) {
  std::string err = error_of(config_with({"0.0.0.0/0"}), host_facts());
  EXPECT_NE(err.find("mode = \"host\""), std::string::npos) << err;
}

TEST(JailPlan, ConnectedSubnetsAreBlackholedOnceEach) {
  NetworkFacts f = host_facts();
  f.connected = {P("10.0.0.0/8"), P("192.0.2.0/24"), P("172.17.0.0/16")};
  f.default_gateway = "192.0.2.1";
  JailPlan plan = plan_jail(config_with(), f);
  EXPECT_EQ(strs(plan.blackholes),
            (std::vector<std::string>{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
                                      "168.63.129.16/32", "192.0.2.0/24", "172.17.0.0/16"}));
}

TEST(JailPlan, GatewayOutsideEveryBlockIsBlackholedItself) {
  // A public /32 with an on-link gateway elsewhere (some hosting providers).
  NetworkFacts f = host_facts();
  f.connected = {P("198.18.5.5/32")};
  f.default_gateway = "198.18.0.1";
  JailPlan plan = plan_jail(config_with(), f);
  EXPECT_EQ(plan.blackholes.back().str(), "198.18.0.1/32");
  EXPECT_EQ(plan.gateway, "198.18.0.1");
}

// Every address of the host itself is out of reach: pasta would connect to it from the host,
// where it is local. One no block covers (a public /32 on lo, or an interface's /32) becomes a
// /32 blackhole of its own; one inside a connected subnet or an allow_ip adds nothing.
TEST(JailPlan, TheHostsOwnAddressesAreBlackholedUnlessCovered) {
  NetworkFacts f = host_facts();
  f.host_addresses = {P("192.0.2.2/32"), P("198.19.7.7/32"), P("203.0.113.9/32"), P("10.9.9.9/32")};
  JailPlan plan = plan_jail(config_with({"203.0.113.9"}), f);
  EXPECT_EQ(strs(plan.host_addresses), (std::vector<std::string>{"198.19.7.7/32"}));
  const auto blackholes = strs(plan.blackholes);
  EXPECT_NE(std::find(blackholes.begin(), blackholes.end(), "198.19.7.7/32"), blackholes.end());
  EXPECT_EQ(std::find(blackholes.begin(), blackholes.end(), "192.0.2.2/32"), blackholes.end());
  EXPECT_EQ(std::find(blackholes.begin(), blackholes.end(), "203.0.113.9/32"), blackholes.end());  // allowed
  EXPECT_EQ(std::find(blackholes.begin(), blackholes.end(), "10.9.9.9/32"), blackholes.end());     // in 10/8
}

// The forwarder is never an address of the host: the automatic pick skips one.
TEST(JailPlan, ForwarderSkipsAnAddressOfTheHost) {
  NetworkFacts f = host_facts();
  f.host_addresses = {P("198.51.100.53/32")};
  EXPECT_EQ(plan_jail(config_with(), f).dns_forward, "203.0.113.53");
}

TEST(JailPlan, NoDefaultRouteIsAnErrorNamingTheOptOut) {
  NetworkFacts f = host_facts();
  f.default_gateway.clear();
  std::string err = error_of(config_with(), f);
  EXPECT_NE(err.find("no IPv4 default route"), std::string::npos) << err;
  EXPECT_NE(err.find("mode = \"host\" (no confinement) in /etc/cordon/cordon.toml"), std::string::npos) << err;
}

TEST(JailPlan, ResolvConfPointsAtTheForwarderAndKeepsSearchAndOptions) {
  NetworkFacts f = host_facts();
  f.resolvers.clear();
  parse_resolv_conf(
      "# comment\nnameserver 10.255.255.53\nnameserver 10.255.255.54\nsearch corp.test lab.test\n"
      "domain corp.test\noptions ndots:2 timeout:1\nsortlist 10.0.0.0\n",
      f);
  EXPECT_EQ(f.resolvers, (std::vector<std::string>{"10.255.255.53", "10.255.255.54"}));
  JailPlan plan = plan_jail(config_with(), f);
  EXPECT_EQ(plan.resolv_conf,
            "# written by cordon: DNS goes through the egress jail's forwarder\n"
            "nameserver 198.51.100.53\nsearch corp.test lab.test\ndomain corp.test\noptions ndots:2 timeout:1\n");
}

TEST(JailRoutes, IntendedRoutesAreExactAndUseAnOnLinkGateway) {
  JailPlan plan = plan_jail(config_with({"10.9.9.9"}), host_facts());
  std::vector<netlink::Route> routes = intended_routes(plan, 7);
  std::vector<std::string> described;
  for (const auto& r : routes) described.push_back(r.describe());
  EXPECT_EQ(described, (std::vector<std::string>{
                           "blackhole 10.0.0.0/8 scope universe",
                           "blackhole 172.16.0.0/12 scope universe",
                           "blackhole 192.168.0.0/16 scope universe",
                           "blackhole 100.64.0.0/10 scope universe",
                           "blackhole 168.63.129.16/32 scope universe",
                           "blackhole 192.0.2.0/24 scope universe",
                           "unreachable 169.254.0.0/16 scope universe",
                           "unicast 0.0.0.0/0 via 192.0.2.1 dev 7 onlink scope universe",
                           "unicast 198.51.100.53/32 via 192.0.2.1 dev 7 onlink scope universe",
                           "unicast 10.9.9.9/32 via 192.0.2.1 dev 7 onlink scope universe",
                       }));
  for (const auto& r : routes) EXPECT_EQ(r.protocol, RTPROT_STATIC);
}

}  // namespace
}  // namespace cordon::jail
