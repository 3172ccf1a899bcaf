#include "common/egress_rules.h"

#include <arpa/inet.h>

#include <cctype>

#include "common/error.h"

namespace cordon {
namespace {

constexpr const char* kAcceptedForms =
    "accepted forms: \"api.example.com\", \"*.example.com\" (names below it), \"203.0.113.5\" or "
    "\"203.0.113.0/24\" (IPv4), each with an optional \":PORT\" (1-65535); without a port a name admits 80 and 443";

[[noreturn]] void reject(std::string_view key, std::string_view text, const std::string& why) {
  throw Error(std::string(key) + ": invalid egress rule \"" + std::string(text) + "\": " + why, kAcceptedForms,
              kExitConfigError);
}

// "1".."65535"; nullopt otherwise.
std::optional<uint16_t> parse_port(std::string_view digits) {
  if (digits.empty() || digits.size() > 5) return std::nullopt;
  unsigned value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + unsigned(c - '0');
  }
  if (value == 0 || value > 65535) return std::nullopt;
  return uint16_t(value);
}

// A DNS name: labels of letters, digits, '-' and '_' (1-63 bytes), at most 253 bytes.
std::string name_problem(std::string_view name) {
  if (name.empty()) return "empty name";
  if (name.size() > 253) return "name longer than 253 characters";
  size_t label = 0;
  for (size_t i = 0; i <= name.size(); ++i) {
    if (i == name.size() || name[i] == '.') {
      if (label == 0) return "empty label (\"..\" or a leading dot)";
      if (label > 63) return "label longer than 63 characters";
      label = 0;
      continue;
    }
    char c = name[i];
    if (c == '*') return "'*' is allowed only as a whole leading \"*.\" label";
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
      return std::string("character '") + c + "' is not allowed in a name";
    ++label;
  }
  return {};
}

bool all_digits_and_dots(std::string_view text) {
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != '/') return false;
  return true;
}

void parse_host_part(std::string_view key, std::string_view text, std::string_view host, EgressRule& rule) {
  if (all_digits_and_dots(host)) {
    std::string problem;
    auto prefix = parse_ipv4_cidr(std::string(host), &problem);
    if (!prefix) reject(key, text, problem);
    rule.kind = EgressRule::Kind::Ip;
    rule.prefix = *prefix;
    return;
  }
  std::string name = normalize_host(host);
  if (name.rfind("*.", 0) == 0) {
    rule.kind = EgressRule::Kind::Wildcard;
    name = name.substr(2);
  }
  if (std::string problem = name_problem(name); !problem.empty()) reject(key, text, problem);
  rule.name = name;
}

}  // namespace

std::string normalize_host(std::string_view host) {
  std::string out(host);
  if (!out.empty() && out.back() == '.') out.pop_back();
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<uint32_t> raw_ipv4_host(const std::string& host) {
  in_addr addr{};
  if (host.empty() || inet_aton(host.c_str(), &addr) == 0) return std::nullopt;
  return ntohl(addr.s_addr);
}

EgressRule parse_egress_rule(std::string_view text, std::string_view key) {
  if (text.empty()) reject(key, text, "empty rule");
  if (text.find('[') != std::string_view::npos || text.find(':') != text.rfind(':'))
    reject(key, text, "IPv6 is not supported (the proxy connects over IPv4 only)");
  EgressRule rule;
  rule.text = std::string(text);
  std::string_view host = text;
  if (auto colon = text.find(':'); colon != std::string_view::npos) {
    rule.port = parse_port(text.substr(colon + 1));
    if (!rule.port) reject(key, text, "port must be a number 1-65535");
    host = text.substr(0, colon);
  }
  parse_host_part(key, text, host, rule);
  return rule;
}

bool EgressRule::matches_name(std::string_view name, uint16_t p, bool in_deny) const {
  if (kind == Kind::Ip) return false;
  if (port ? *port != p : !in_deny && p != 80 && p != 443) return false;
  if (kind == Kind::Exact) return name == this->name;
  // Strictly below the suffix: at least one label and a dot before it.
  return name.size() > this->name.size() + 1 && name.ends_with(this->name) &&
         name[name.size() - this->name.size() - 1] == '.';
}

bool EgressRule::matches_address(uint32_t address, uint16_t p) const {
  return kind == Kind::Ip && (!port || *port == p) && prefix.contains(address);
}

bool rule_within(const EgressRule& rule, const EgressRule& pattern) {
  // Ports: what the rule admits must all be admitted by the pattern.
  if (pattern.port && rule.port != pattern.port) return false;
  if (!pattern.port && rule.port && *rule.port != 80 && *rule.port != 443 && rule.kind != EgressRule::Kind::Ip)
    return false;
  using Kind = EgressRule::Kind;
  if (rule.kind == Kind::Ip || pattern.kind == Kind::Ip) {
    if (rule.kind != Kind::Ip || pattern.kind != Kind::Ip) return false;
    return rule.prefix.length >= pattern.prefix.length && pattern.prefix.contains(rule.prefix.address);
  }
  const auto below = [](const std::string& name, const std::string& suffix) {
    return name.size() > suffix.size() + 1 && name.ends_with(suffix) && name[name.size() - suffix.size() - 1] == '.';
  };
  if (pattern.kind == Kind::Exact) return rule.kind == Kind::Exact && rule.name == pattern.name;
  // A wildcard pattern: an exact name strictly below it, or a wildcard at or below its suffix.
  return rule.kind == Kind::Exact ? below(rule.name, pattern.name)
                                  : rule.name == pattern.name || below(rule.name, pattern.name);
}

EgressRules::EgressRules(const std::vector<std::string>& allow, const std::vector<std::string>& deny,
                         std::string_view allow_key, std::string_view deny_key) {
  for (const auto& text : allow) allow_.push_back(parse_egress_rule(text, allow_key));
  for (const auto& text : deny) deny_.push_back(parse_egress_rule(text, deny_key));
}

EgressVerdict EgressRules::decide(const std::string& host, uint16_t port) const {
  if (auto address = raw_ipv4_host(host)) {
    if (const EgressRule* rule = denying_address(*address, port)) return {EgressVerdict::Reason::DeniedByRule, rule};
    for (const auto& rule : allow_)
      if (rule.matches_address(*address, port)) return {EgressVerdict::Reason::Allowed, &rule};
    return {EgressVerdict::Reason::RawIpNotAllowed, nullptr};
  }
  std::string name = normalize_host(host);
  for (const auto& rule : deny_)
    if (rule.matches_name(name, port, true)) return {EgressVerdict::Reason::DeniedByRule, &rule};
  for (const auto& rule : allow_)
    if (rule.matches_name(name, port, false)) return {EgressVerdict::Reason::Allowed, &rule};
  return {EgressVerdict::Reason::NotAllowed, nullptr};
}

const EgressRule* EgressRules::denying_address(uint32_t address, uint16_t port) const {
  for (const auto& rule : deny_)
    if (rule.matches_address(address, port)) return &rule;
  return nullptr;
}

bool EgressRules::allows_address(uint32_t address, uint16_t port) const {
  for (const auto& rule : allow_)
    if (rule.matches_address(address, port)) return true;
  return false;
}

}  // namespace cordon
