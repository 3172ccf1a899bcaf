// The allowlist's rules (common/egress_rules.h): parsing and the decision per destination.
// The input is lines: "a RULE" an allow rule, "d RULE" a deny rule, any other line a
// destination "HOST:PORT" (HOST alone: port 443).
//   - parse_egress_rule returns a rule or throws cordon::Error; a rule's own text parses to
//     the same rule; a name rule's name is lowercase without a trailing dot;
//   - decide() never throws, and agrees with a model written from the header's rule syntax
//     (deny wins; a name rule without a port admits 80 and 443, in deny every port; a
//     wildcard matches strictly below its suffix; IP rules match raw IPv4 destinations only);
//   - a name's decision does not depend on its case or on one trailing dot.
#include <cctype>
#include <charconv>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "common/egress_rules.h"
#include "common/error.h"
#include "fuzz_common.h"

namespace {
constexpr std::string_view kFuzzTarget = "proxy_rules";
using cordon::EgressRule;
using cordon::EgressVerdict;

bool model_name_match(const EgressRule& r, const std::string& name, uint16_t port, bool in_deny) {
  if (r.kind == EgressRule::Kind::Ip) return false;
  const bool port_ok = r.port ? *r.port == port : (in_deny || port == 80 || port == 443);
  if (!port_ok) return false;
  if (r.kind == EgressRule::Kind::Exact) return name == r.name;
  const std::string suffix = "." + r.name;
  return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool model_address_match(const EgressRule& r, uint32_t address, uint16_t port) {
  if (r.kind != EgressRule::Kind::Ip || (r.port && *r.port != port)) return false;
  const uint32_t mask = r.prefix.length == 0 ? 0 : ~uint32_t{0} << (32 - r.prefix.length);
  return (address & mask) == r.prefix.address;
}

EgressVerdict::Reason model_decide(const std::vector<EgressRule>& allow, const std::vector<EgressRule>& deny,
                                   const std::string& host, uint16_t port) {
  using R = EgressVerdict::Reason;
  if (auto address = cordon::raw_ipv4_host(host)) {
    for (const auto& r : deny)
      if (model_address_match(r, *address, port)) return R::DeniedByRule;
    for (const auto& r : allow)
      if (model_address_match(r, *address, port)) return R::Allowed;
    return R::RawIpNotAllowed;
  }
  std::string name = host;
  if (!name.empty() && name.back() == '.') name.pop_back();
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& r : deny)
    if (model_name_match(r, name, port, true)) return R::DeniedByRule;
  for (const auto& r : allow)
    if (model_name_match(r, name, port, false)) return R::Allowed;
  return R::NotAllowed;
}

std::optional<EgressRule> parse(const std::string& text) {
  try {
    EgressRule rule = cordon::parse_egress_rule(text);
    if (rule.kind != EgressRule::Kind::Ip) {
      for (char c : rule.name) FUZZ_CHECK(!std::isupper(static_cast<unsigned char>(c)), "an uppercase rule name");
      FUZZ_CHECK(rule.name.empty() || rule.name.back() != '.', "a rule name with a trailing dot");
    }
    FUZZ_CHECK(!rule.port || *rule.port != 0, "a rule for port 0");
    const EgressRule again = cordon::parse_egress_rule(rule.text);
    FUZZ_CHECK(
        again.kind == rule.kind && again.name == rule.name && again.prefix == rule.prefix && again.port == rule.port,
        "a rule's text does not parse to the same rule: " + cordon::fuzz::escaped(text));
    return rule;
  } catch (const cordon::Error&) {
    return std::nullopt;
  }
}

void decide(const cordon::EgressRules& rules, const std::string& host, uint16_t port) {
  const EgressVerdict v = rules.decide(host, port);
  const auto expected = model_decide(rules.allow(), rules.deny(), host, port);
  FUZZ_CHECK(v.reason == expected, "decide() disagrees with the model for " + cordon::fuzz::escaped(host) + ":" +
                                       std::to_string(port) + " (got " + std::to_string(static_cast<int>(v.reason)) +
                                       ", model " + std::to_string(static_cast<int>(expected)) + ")");
  if (v.reason == EgressVerdict::Reason::Allowed || v.reason == EgressVerdict::Reason::DeniedByRule) {
    const auto& list = v.reason == EgressVerdict::Reason::Allowed ? rules.allow() : rules.deny();
    FUZZ_CHECK(v.rule != nullptr && v.rule >= list.data() && v.rule < list.data() + list.size(),
               "a verdict naming a rule of the other list");
  } else {
    FUZZ_CHECK(v.rule == nullptr, "a verdict without a rule names one");
  }
  // Names are case-insensitive, one trailing dot ignored (raw IPv4 literals aside: inet_aton reads them).
  if (!cordon::raw_ipv4_host(host)) {
    std::string upper = host;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (!cordon::raw_ipv4_host(upper))
      FUZZ_CHECK(rules.decide(upper, port).reason == v.reason, "a name's decision depends on its case");
    if (host.empty() || host.back() != '.') {
      const std::string dotted = host + ".";
      if (!cordon::raw_ipv4_host(dotted))
        FUZZ_CHECK(rules.decide(dotted, port).reason == v.reason, "a name's decision depends on a trailing dot");
    }
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = cordon::fuzz::as_text(data, size);
  std::vector<std::string> allow, deny, destinations;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string line(text.substr(start, nl - start));
    start = nl + 1;
    if (line.rfind("a ", 0) == 0) allow.push_back(line.substr(2));
    else if (line.rfind("d ", 0) == 0) deny.push_back(line.substr(2));
    else destinations.push_back(line);
  }
  try {
    std::vector<std::string> valid_allow, valid_deny;
    for (const auto& r : allow)
      if (parse(r)) valid_allow.push_back(r);
    for (const auto& r : deny)
      if (parse(r)) valid_deny.push_back(r);
    const cordon::EgressRules rules(valid_allow, valid_deny);
    for (const auto& d : destinations) {
      std::string host = d;
      uint16_t port = 443;
      if (const size_t colon = d.rfind(':'); colon != std::string::npos) {
        host = d.substr(0, colon);
        unsigned value = 0;
        const char* first = d.data() + colon + 1;
        const auto [end, ec] = std::from_chars(first, d.data() + d.size(), value);
        port = ec == std::errc() && value <= 65535 ? static_cast<uint16_t>(value) : 0;
      }
      decide(rules, host, port);
    }
  } catch (const std::exception& e) {
    cordon::fuzz::violated(kFuzzTarget, std::string("threw: ") + e.what());
  }
  return 0;
}
