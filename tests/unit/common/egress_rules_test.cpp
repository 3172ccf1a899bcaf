#include "common/egress_rules.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace cordon {
namespace {

std::string rejection(const std::string& text) {
  try {
    parse_egress_rule(text);
  } catch (const Error& e) {
    EXPECT_NE(e.fix().find("accepted forms"), std::string::npos) << e.fix();
    EXPECT_EQ(e.exit_code(), kExitConfigError);
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return {};
}

TEST(EgressRuleParse, AcceptsEachForm) {
  auto exact = parse_egress_rule("API.Example.com.");
  EXPECT_EQ(exact.kind, EgressRule::Kind::Exact);
  EXPECT_EQ(exact.name, "api.example.com");
  EXPECT_FALSE(exact.port);
  auto wildcard = parse_egress_rule("*.example.com:8443");
  EXPECT_EQ(wildcard.kind, EgressRule::Kind::Wildcard);
  EXPECT_EQ(wildcard.name, "example.com");
  EXPECT_EQ(wildcard.port, 8443);
  auto ip = parse_egress_rule("203.0.113.5");
  EXPECT_EQ(ip.kind, EgressRule::Kind::Ip);
  EXPECT_EQ(ip.prefix, (Ipv4Prefix{0xCB007105u, 32}));
  auto cidr = parse_egress_rule("203.0.113.0/24:22");
  EXPECT_EQ(cidr.prefix, (Ipv4Prefix{0xCB007100u, 24}));
  EXPECT_EQ(cidr.port, 22);
  EXPECT_EQ(parse_egress_rule("a_b-c.test:65535").port, 65535);
  EXPECT_EQ(cidr.text, "203.0.113.0/24:22");
}

TEST(EgressRuleParse, RejectsEachInvalidFormSayingWhy) {
  EXPECT_NE(rejection("").find("empty rule"), std::string::npos);
  EXPECT_NE(rejection("exa mple.com").find("character ' '"), std::string::npos);
  EXPECT_NE(rejection("exa$mple.com").find("character '$'"), std::string::npos);
  EXPECT_NE(rejection("api.*.example.com").find("'*'"), std::string::npos);
  EXPECT_NE(rejection("*example.com").find("'*'"), std::string::npos);
  EXPECT_NE(rejection("example.*").find("'*'"), std::string::npos);
  EXPECT_NE(rejection("*").find("'*'"), std::string::npos);
  EXPECT_NE(rejection("*.").find("'*'"), std::string::npos);
  EXPECT_NE(rejection("*..test").find("empty label"), std::string::npos);
  EXPECT_NE(rejection("a..b").find("empty label"), std::string::npos);
  EXPECT_NE(rejection("example.com:0").find("port"), std::string::npos);
  EXPECT_NE(rejection("example.com:65536").find("port"), std::string::npos);
  EXPECT_NE(rejection("example.com:").find("port"), std::string::npos);
  EXPECT_NE(rejection("example.com:http").find("port"), std::string::npos);
  EXPECT_NE(rejection("::1").find("IPv6"), std::string::npos);
  EXPECT_NE(rejection("[2001:db8::1]:443").find("IPv6"), std::string::npos);
  EXPECT_NE(rejection("fd00::/8").find("IPv6"), std::string::npos);
  EXPECT_NE(rejection("203.0.113.5/24").find("host bits"), std::string::npos);
  EXPECT_NE(rejection("203.0.113.0/33").find("prefix length"), std::string::npos);
  EXPECT_NE(rejection("1.2.3").find("IPv4"), std::string::npos);
}

TEST(EgressRuleParse, MessageNamesTheKeyAndTheRule) {
  try {
    parse_egress_rule("bad rule", "--allow");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--allow"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("\"bad rule\""), std::string::npos);
  }
}

TEST(EgressRules, ExactNameCaseInsensitiveDefaultPorts) {
  EgressRules rules({"api.example.com"}, {});
  EXPECT_TRUE(rules.decide("api.example.com", 443).allowed());
  EXPECT_TRUE(rules.decide("API.EXAMPLE.COM.", 80).allowed());
  EXPECT_FALSE(rules.decide("api.example.com", 8080).allowed());
  EXPECT_EQ(rules.decide("api.example.com", 22).reason, EgressVerdict::Reason::NotAllowed);
  EXPECT_FALSE(rules.decide("www.api.example.com", 443).allowed());
  EXPECT_FALSE(rules.decide("example.com", 443).allowed());
}

TEST(EgressRules, WildcardIsStrictlyBelowTheSuffix) {
  EgressRules rules({"*.example.com"}, {});
  EXPECT_TRUE(rules.decide("a.example.com", 443).allowed());
  EXPECT_TRUE(rules.decide("b.a.example.com", 80).allowed());
  EXPECT_FALSE(rules.decide("example.com", 443).allowed());
  EXPECT_FALSE(rules.decide("badexample.com", 443).allowed());
}

TEST(EgressRules, ExplicitPortAdmitsOnlyThatPort) {
  EgressRules rules({"git.example.com:22"}, {});
  EXPECT_TRUE(rules.decide("git.example.com", 22).allowed());
  EXPECT_FALSE(rules.decide("git.example.com", 443).allowed());
}

TEST(EgressRules, DenyWinsAndPortlessDenyCoversEveryPort) {
  EgressRules rules({"*.example.com", "*.example.com:8443"}, {"evil.example.com"});
  auto v = rules.decide("evil.example.com", 443);
  EXPECT_EQ(v.reason, EgressVerdict::Reason::DeniedByRule);
  ASSERT_NE(v.rule, nullptr);
  EXPECT_EQ(v.rule->text, "evil.example.com");
  EXPECT_EQ(rules.decide("evil.example.com", 8443).reason, EgressVerdict::Reason::DeniedByRule);
  EXPECT_TRUE(rules.decide("good.example.com", 8443).allowed());
  EgressRules narrow({"*.example.com"}, {"*.example.com:80"});
  EXPECT_FALSE(narrow.decide("a.example.com", 80).allowed());
  EXPECT_TRUE(narrow.decide("a.example.com", 443).allowed());
}

TEST(EgressRules, RawIpNeedsAnIpRule) {
  EgressRules names({"*.example.com"}, {});
  EXPECT_EQ(names.decide("203.0.113.5", 443).reason, EgressVerdict::Reason::RawIpNotAllowed);
  // Every literal form getaddrinfo would accept is a raw IP, not a name.
  EXPECT_EQ(names.decide("2130706433", 80).reason, EgressVerdict::Reason::RawIpNotAllowed);
  EXPECT_EQ(names.decide("0x7f.1", 80).reason, EgressVerdict::Reason::RawIpNotAllowed);
  EgressRules ips({"203.0.113.0/24", "198.51.100.7:22"}, {"203.0.113.66"});
  EXPECT_TRUE(ips.decide("203.0.113.5", 12345).allowed());
  EXPECT_EQ(ips.decide("203.0.113.66", 443).reason, EgressVerdict::Reason::DeniedByRule);
  EXPECT_TRUE(ips.decide("198.51.100.7", 22).allowed());
  EXPECT_FALSE(ips.decide("198.51.100.7", 443).allowed());
  EXPECT_FALSE(ips.decide("a.example.com", 443).allowed());  // IP rules never admit names
  EXPECT_TRUE(ips.allows_address(0xCB007109u, 80));
  EXPECT_FALSE(ips.allows_address(0xC6336407u, 80));
  EXPECT_NE(ips.denying_address(0xCB007142u, 1), nullptr);
}

TEST(EgressRules, ConstructorThrowsOnTheFirstBadRuleNamingItsKey) {
  EXPECT_THROW(EgressRules({"ok.test", "bad*.test"}, {}), Error);
  try {
    EgressRules({"ok.test"}, {"::1"}, "--allow", "--deny");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--deny: invalid egress rule \"::1\"", 0), 0u) << e.what();
  }
}

TEST(RawIpv4Host, LiteralsAndNames) {
  EXPECT_EQ(raw_ipv4_host("127.0.0.1"), 0x7F000001u);
  EXPECT_EQ(raw_ipv4_host("127.1"), 0x7F000001u);
  EXPECT_FALSE(raw_ipv4_host("example.com"));
  EXPECT_FALSE(raw_ipv4_host("1.2.3.4.example.com"));
  EXPECT_FALSE(raw_ipv4_host(""));
}

}  // namespace
}  // namespace cordon

namespace cordon {
namespace {

bool within(const char* rule, const char* pattern) {
  return rule_within(parse_egress_rule(rule), parse_egress_rule(pattern));
}

// `cordon run --allow RULE` must stay inside the operator's [network] user_allow: every
// destination the rule admits is one a pattern admits.
TEST(EgressRuleWithin, ARunsRuleMustAdmitNothingThePatternDoesNot) {
  EXPECT_TRUE(within("registry.npmjs.org", "registry.npmjs.org"));
  EXPECT_TRUE(within("registry.npmjs.org", "*.npmjs.org"));
  EXPECT_TRUE(within("*.cdn.npmjs.org", "*.npmjs.org"));
  EXPECT_TRUE(within("*.npmjs.org", "*.npmjs.org"));
  EXPECT_FALSE(within("npmjs.org", "*.npmjs.org"));  // the wildcard is strictly below
  EXPECT_FALSE(within("*.npmjs.org", "registry.npmjs.org"));
  EXPECT_FALSE(within("evilnpmjs.org", "*.npmjs.org"));
  EXPECT_FALSE(within("*.org", "*.npmjs.org"));
  // Ports: no port means 80 and 443.
  EXPECT_TRUE(within("registry.npmjs.org:443", "*.npmjs.org"));
  EXPECT_FALSE(within("registry.npmjs.org:22", "*.npmjs.org"));
  EXPECT_FALSE(within("registry.npmjs.org", "*.npmjs.org:443"));  // would admit port 80 too
  EXPECT_TRUE(within("registry.npmjs.org:443", "*.npmjs.org:443"));
  // Addresses: a prefix inside the pattern's; names and addresses never cover each other.
  EXPECT_TRUE(within("203.0.113.5", "203.0.113.0/24"));
  EXPECT_TRUE(within("203.0.113.0/25:443", "203.0.113.0/24"));
  EXPECT_FALSE(within("203.0.112.0/23", "203.0.113.0/24"));
  EXPECT_FALSE(within("203.0.113.5", "203.0.113.0/24:443"));
  EXPECT_FALSE(within("203.0.113.5", "*.npmjs.org"));
  EXPECT_FALSE(within("registry.npmjs.org", "203.0.113.0/24"));
}

}  // namespace
}  // namespace cordon
