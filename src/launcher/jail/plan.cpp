#include "launcher/jail/plan.h"

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

std::string opt_out(const Config& config) {
  return "or, to run without network confinement, " + egress_jail_opt_out(config.source_path);
}

// Addresses that can never serve as a forwarder: "this network", loopback, multicast, reserved.
bool special(uint32_t a) {
  return prefix("0.0.0.0/8").contains(a) || prefix("127.0.0.0/8").contains(a) || prefix("224.0.0.0/4").contains(a) ||
         prefix("240.0.0.0/4").contains(a);
}

std::string choose_forwarder(const Config& config, const NetworkFacts& facts, const std::vector<Ipv4Prefix>& blocked) {
  if (config.network.dns_forward == "auto") {
    for (const char* candidate : kForwarderCandidates) {
      uint32_t a = *parse_ipv4_address(candidate, nullptr);
      if (!covered(a, facts.connected) && !covered(a, blocked)) return candidate;
    }
    throw Error(
        "egress jail: every automatic DNS forwarder address (192.0.2.53, 198.51.100.53, 203.0.113.53) "
        "lies inside a connected subnet or a blocked prefix of this host",
        "set [network] dns_forward to an unused public-looking address outside the host's subnets " + opt_out(config),
        kExitConfigError);
  }
  std::string problem;
  auto a = parse_ipv4_address(config.network.dns_forward, &problem);
  if (!a)
    throw Error("network.dns_forward \"" + config.network.dns_forward + "\": " + problem, "use \"auto\" or an IPv4 address",
                kExitConfigError);
  std::string why;
  if (special(*a)) why = "is a loopback, multicast or reserved address";
  else if (covered(*a, facts.connected))
    why = "lies inside a subnet this host is connected to (it would shadow a neighbour)";
  else if (covered(*a, blocked))
    why =
        "lies inside a blocked prefix (pasta forwards every other port of the forwarder address to the real "
        "network, so punching it would open that host)";
  if (!why.empty())
    throw Error(
        "network.dns_forward " + config.network.dns_forward + " " + why,
        "use dns_forward = \"auto\", or an address from 198.51.100.0/24 or 203.0.113.0/24 outside the host's subnets",
        kExitConfigError);
  return config.network.dns_forward;
}

}  // namespace

JailPlan plan_jail(const Config& config, const NetworkFacts& facts) {
  std::string problem;
  if (facts.default_gateway.empty())
    throw Error(
        "egress jail: this host has no IPv4 default route with a gateway, so the jail has nothing to "
        "forward through",
        "configure a default route (ip route add default via GATEWAY) " + opt_out(config));
  auto gateway = parse_ipv4_address(facts.default_gateway, &problem);
  if (!gateway) throw Error("egress jail: host default gateway \"" + facts.default_gateway + "\": " + problem);

  JailPlan plan;
  plan.gateway = facts.default_gateway;
  plan.unreachable = cordon::fixed_unreachable();

  std::vector<Ipv4Prefix> allowed;
  for (const auto& entry : config.network.allow_ip) {
    auto p = parse_ipv4_cidr(entry, &problem);
    if (!p)
      throw Error("network.allow_ip \"" + entry + "\": " + problem, "fix " + config.source_path, kExitConfigError);
    if (p->length == 0)
      throw Error("network.allow_ip contains 0.0.0.0/0, which would allow everything",
                  "remove it; to run without network confinement " + egress_jail_opt_out(config.source_path),
                  kExitConfigError);
    add_unique(allowed, *p);
  }

  // Blocks: fixed ranges and every connected subnet; an allow entry equal to a block replaces it.
  std::vector<Ipv4Prefix> blocked = cordon::fixed_blackholes();
  for (const auto& subnet : facts.connected) add_unique(blocked, subnet);
  for (const auto& p : blocked)
    if (!listed(p, allowed) && !listed(p, plan.unreachable)) plan.blackholes.push_back(p);
  if (!covered(*gateway, plan.blackholes) && !covered(*gateway, plan.unreachable) && !covered(*gateway, allowed))
    plan.blackholes.push_back({*gateway, 32});

  std::vector<Ipv4Prefix> all_blocked = plan.blackholes;
  all_blocked.insert(all_blocked.end(), plan.unreachable.begin(), plan.unreachable.end());
  plan.dns_forward = choose_forwarder(config, facts, all_blocked);
  plan.allow.push_back({*parse_ipv4_address(plan.dns_forward, nullptr), 32});
  for (const auto& p : allowed) add_unique(plan.allow, p);

  plan.resolv_conf = "# written by cordon: DNS goes through the egress jail's forwarder\nnameserver " +
                     plan.dns_forward + "\n";
  for (const auto& line : facts.resolv_extra_lines) plan.resolv_conf += line + "\n";
  return plan;
}

void parse_resolv_conf(const std::string& text, NetworkFacts& facts) {
  facts.resolvers = resolv_conf_nameservers(text);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string keyword;
    words >> keyword;
    if (keyword == "search" || keyword == "domain" || keyword == "options") {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
      facts.resolv_extra_lines.push_back(line);
    }
  }
}

NetworkFacts gather_network_facts() {
  NetworkFacts facts;
  netlink::Socket nl;
  std::vector<netlink::Link> links = nl.links();
  auto is_loopback = [&](int index) {
    return std::any_of(links.begin(), links.end(),
                       [&](const netlink::Link& l) { return l.index == index && (l.flags & IFF_LOOPBACK); });
  };
  for (const auto& a : nl.addresses(AF_INET)) {
    if (is_loopback(a.ifindex) || prefix("127.0.0.0/8").contains(a.local)) continue;
    add_unique(facts.connected, ipv4_subnet_of(a.local, a.prefix_len));
    if (a.peer != a.local) add_unique(facts.connected, ipv4_subnet_of(a.peer, a.prefix_len));  // point-to-point
  }
  // The default route pasta will copy: the main table's lowest-metric unicast default.
  const netlink::Route* best = nullptr;
  std::vector<netlink::Route> routes = nl.routes(AF_INET);
  for (const auto& r : routes)
    if (r.table == RT_TABLE_MAIN && r.dst_len == 0 && r.type == RTN_UNICAST && r.gateway &&
        (!best || r.priority < best->priority))
      best = &r;
  if (best) {
    facts.default_gateway = ipv4_to_string(best->gateway);
    for (const auto& l : links)
      if (l.index == best->oif) facts.default_interface = l.name;
  }
  std::ifstream resolv("/etc/resolv.conf");  // reading a file: nothing is sent
  std::stringstream text;
  text << resolv.rdbuf();
  parse_resolv_conf(text.str(), facts);
  return facts;
}

}  // namespace cordon::jail
