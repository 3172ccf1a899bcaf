#include "launcher/network/jail_plan.h"

#include <linux/rtnetlink.h>
#include <net/if.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/ipv4.h"
#include "common/netlink.h"
#include "common/network_opt_out.h"
#include "common/resolv_conf.h"

namespace cordon::jail {
namespace {

Ipv4Prefix prefix(const char* text) { return *parse_ipv4_cidr(text, nullptr); }

bool covered(uint32_t address, const std::vector<Ipv4Prefix>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](const Ipv4Prefix& p) { return p.contains(address); });
}

bool listed(const Ipv4Prefix& p, const std::vector<Ipv4Prefix>& prefixes) {
  return std::find(prefixes.begin(), prefixes.end(), p) != prefixes.end();
}

void add_unique(std::vector<Ipv4Prefix>& prefixes, const Ipv4Prefix& p) {
  if (!listed(p, prefixes)) prefixes.push_back(p);
}

std::string opt_out(const std::string& config_path) {
  return "or, to run without network confinement, " + egress_jail_opt_out(config_path);
}

constexpr const char* kForwarderFix =
    "use dns_forward = \"auto\", or an address from 198.51.100.0/24 or 203.0.113.0/24 outside the host's subnets";

// Addresses that can never serve as a forwarder: "this network", loopback, multicast, reserved.
bool special(uint32_t a) {
  return prefix("0.0.0.0/8").contains(a) || prefix("127.0.0.0/8").contains(a) || prefix("224.0.0.0/4").contains(a) ||
         prefix("240.0.0.0/4").contains(a);
}

// An explicit forwarder that can never serve, whatever the host: refused before anything
// about the host is asked.
void refuse_special_forwarder(const NetworkConfig& config, const ConfigSource& source) {
  if (config.dns_forward == "auto") return;
  std::string problem;
  auto a = parse_ipv4_address(config.dns_forward, &problem);
  if (!a)
    throw source.error("network.dns_forward", {}, "\"" + config.dns_forward + "\": " + problem,
                       "use \"auto\" or an IPv4 address");
  if (special(*a))
    throw source.error("network.dns_forward", {}, config.dns_forward + " is a loopback, multicast or reserved address",
                       kForwarderFix);
}

std::string choose_forwarder(const NetworkConfig& config, const ConfigSource& source, const NetworkFacts& facts,
                             const std::vector<Ipv4Prefix>& blocked) {
  if (config.dns_forward == "auto") {
    for (const char* candidate : kForwarderCandidates) {
      uint32_t a = *parse_ipv4_address(candidate, nullptr);
      if (!covered(a, facts.connected) && !covered(a, blocked)) return candidate;
    }
    throw source.error("network.dns_forward", {},
                       "\"auto\": every automatic DNS forwarder address (192.0.2.53, 198.51.100.53, 203.0.113.53) "
                       "lies inside a connected subnet or a blocked prefix of this host",
                       "set [network] dns_forward to an unused public-looking address outside the host's subnets " +
                           opt_out(source.file));
  }
  const uint32_t a = *parse_ipv4_address(config.dns_forward, nullptr);  // refuse_special_forwarder read it
  std::string why;
  if (covered(a, facts.connected)) why = "lies inside a subnet this host is connected to (it would shadow a neighbour)";
  else if (covered(a, blocked))
    why =
        "lies inside a blocked prefix (pasta forwards every other port of the forwarder address to the real "
        "network, so punching it would open that host)";
  if (!why.empty()) throw source.error("network.dns_forward", {}, config.dns_forward + " " + why, kForwarderFix);
  return config.dns_forward;
}

// The allow_ip entries as prefixes; 0.0.0.0/0 would be no jail at all.
std::vector<Ipv4Prefix> allowed_prefixes(const NetworkConfig& config, const ConfigSource& source) {
  std::vector<Ipv4Prefix> allowed;
  for (size_t i = 0; i < config.allow_ip.size(); ++i) {
    const std::string& entry = config.allow_ip[i];
    std::string problem;
    auto p = parse_ipv4_cidr(entry, &problem);
    if (!p) throw source.error("network.allow_ip", i, "\"" + entry + "\": " + problem, "fix " + source.file);
    if (p->length == 0)
      throw source.error("network.allow_ip", i, entry + " would allow everything",
                         "remove it; to run without network confinement " + egress_jail_opt_out(source.file));
    add_unique(allowed, *p);
  }
  return allowed;
}

}  // namespace

JailPlan plan_jail(const NetworkConfig& config, const ConfigSource& source, const NetworkFacts& facts) {
  // The file's values first: what they alone make impossible does not wait for the host's.
  const std::vector<Ipv4Prefix> allowed = allowed_prefixes(config, source);
  refuse_special_forwarder(config, source);
  std::string problem;
  if (facts.default_gateway.empty())
    throw Error(
        "egress jail: this host has no IPv4 default route with a gateway, so the jail has nothing to "
        "forward through",
        "configure a default route (ip route add default via GATEWAY) " + opt_out(source.file));
  auto gateway = parse_ipv4_address(facts.default_gateway, &problem);
  if (!gateway) throw Error("egress jail: host default gateway \"" + facts.default_gateway + "\": " + problem);

  JailPlan plan;
  plan.gateway = facts.default_gateway;
  plan.unreachable = cordon::fixed_unreachable();

  // Blocks: fixed ranges and every connected subnet; an allow entry equal to a block replaces it.
  std::vector<Ipv4Prefix> blocked = cordon::fixed_blackholes();
  for (const auto& subnet : facts.connected) add_unique(blocked, subnet);
  for (const auto& p : blocked)
    if (!listed(p, allowed) && !listed(p, plan.unreachable)) plan.blackholes.push_back(p);
  // The host's own addresses, then the gateway: each as a /32 unless a block or an allow covers it.
  auto block_single = [&](uint32_t address) {
    if (covered(address, plan.blackholes) || covered(address, plan.unreachable) || covered(address, allowed))
      return false;
    plan.blackholes.push_back({address, 32});
    return true;
  };
  for (const auto& host : facts.host_addresses)
    if (block_single(host.address)) plan.host_addresses.push_back({host.address, 32});
  block_single(*gateway);

  std::vector<Ipv4Prefix> all_blocked = plan.blackholes;
  all_blocked.insert(all_blocked.end(), plan.unreachable.begin(), plan.unreachable.end());
  plan.dns_forward = choose_forwarder(config, source, facts, all_blocked);
  plan.allow.push_back({*parse_ipv4_address(plan.dns_forward, nullptr), 32});
  for (const auto& p : allowed) add_unique(plan.allow, p);

  plan.resolv_conf = "# written by cordon: DNS goes through the egress jail's forwarder\nnameserver " +
                     plan.dns_forward + "\n";
  for (const auto& line : facts.resolv_extra_lines) plan.resolv_conf += line + "\n";
  return plan;
}

}  // namespace cordon::jail
