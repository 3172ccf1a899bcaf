// The allow/deny rules of `[network] mode = "allowlist"`: parsed once (by the launcher's
// config validation and by cordon-egress-proxy), then matched per destination. Pure code.
//
// Rule syntax (one rule per string):
//   api.example.com        exactly that name: case-insensitive, one trailing dot ignored
//   *.example.com          any name strictly below example.com (not example.com itself);
//                          `*` is allowed only as the whole first label
//   203.0.113.5            an IPv4 address, or a CIDR block such as 203.0.113.0/24 (host bits
//   203.0.113.0/24         zero): admits raw-IP destinations in it, and exempts those addresses
//                          from the proxy's refusal of loopback/private/link-local/... answers
//   any of these + :PORT   only that port (1-65535)
// Without a port, an allow name rule admits ports 80 and 443 only; every other port must be
// named. A rule without a port in deny refuses every port, and an IP rule without a port
// matches every port (the address is what it names).
// IPv6 is out of scope: IPv6 rules are rejected (the proxy resolves names to IPv4 only).
//
// Decision: a matching deny rule wins over any allow rule; no matching allow rule: denied.
// Name rules match names only and IP rules match addresses only, so `*.example.com` never
// admits a raw IP, and a raw-IP destination needs an IP rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/ipv4.h"

namespace cordon {

struct EgressRule {
  enum class Kind { Exact, Wildcard, Ip };
  Kind kind = Kind::Exact;
  std::string name;              // Exact: the name; Wildcard: the suffix after "*." (lowercase)
  Ipv4Prefix prefix;             // Ip
  std::optional<uint16_t> port;  // nullopt: see the header comment
  std::string text;              // as written, for messages

  // Whether this rule covers the destination; `in_deny` selects the meaning of "no port".
  bool matches_name(std::string_view normalized_name, uint16_t port, bool in_deny) const;
  bool matches_address(uint32_t host_order_address, uint16_t port) const;
};

// Parses one rule; throws cordon::Error saying what is wrong and listing the accepted forms.
// `key` names where the rule came from in the message ("[network] allow", "--allow").
EgressRule parse_egress_rule(std::string_view text, std::string_view key = "[network] allow");

// Whether every destination `rule` admits is also admitted by `pattern` (both parsed allow
// rules): how `cordon run --allow RULE` is held within the operator's [network] user_allow.
// Names: an exact name within an exact equal name or a wildcard above it; a wildcard within a
// wildcard at or above its suffix. Ports: a rule without one means 80 and 443, which a pattern
// without one covers; a rule's port must be one the pattern admits. IP rules: a prefix inside
// the pattern's prefix. A name rule is never within an IP pattern, nor the other way round.
bool rule_within(const EgressRule& rule, const EgressRule& pattern);

// A destination host as the rules see it: lowercase, one trailing dot removed.
std::string normalize_host(std::string_view host);

// A host given as an IPv4 literal in any form inet_aton(3) (and so getaddrinfo) accepts:
// "203.0.113.5", but also "0x7f.1" or "2130706433"; nullopt for a name.
std::optional<uint32_t> raw_ipv4_host(const std::string& host);

struct EgressVerdict {
  enum class Reason { Allowed, NotAllowed, DeniedByRule, RawIpNotAllowed };
  Reason reason = Reason::NotAllowed;
  const EgressRule* rule = nullptr;  // the allow rule that admitted it, or the deny rule that refused it
  bool allowed() const { return reason == Reason::Allowed; }
};

class EgressRules {
 public:
  EgressRules() = default;
  // Throws cordon::Error on the first invalid rule, naming the key it came from.
  EgressRules(const std::vector<std::string>& allow, const std::vector<std::string>& deny,
              std::string_view allow_key = "[network] allow", std::string_view deny_key = "[network] deny");

  // The decision for a destination before any resolution: `host` is a name or an IPv4 literal.
  EgressVerdict decide(const std::string& host, uint16_t port) const;
  // For a resolved (or literal) address: the deny IP rule covering it, if any.
  const EgressRule* denying_address(uint32_t host_order_address, uint16_t port) const;
  // Whether an allow IP rule covers the address: it is then exempt from the refused ranges.
  bool allows_address(uint32_t host_order_address, uint16_t port) const;

  const std::vector<EgressRule>& allow() const { return allow_; }
  const std::vector<EgressRule>& deny() const { return deny_; }

 private:
  std::vector<EgressRule> allow_, deny_;
};

}  // namespace cordon
