#include "launcher/inputs/network_facts.h"

#include <linux/rtnetlink.h>
#include <net/if.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/netlink.h"
#include "common/resolv_conf.h"

namespace cordon {
namespace {

void add_unique(std::vector<Ipv4Prefix>& prefixes, const Ipv4Prefix& p) {
  if (std::find(prefixes.begin(), prefixes.end(), p) == prefixes.end()) prefixes.push_back(p);
}

}  // namespace

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
  const Ipv4Prefix loopback_range = *parse_ipv4_cidr("127.0.0.0/8", nullptr);
  for (const auto& a : nl.addresses(AF_INET)) {
    if (loopback_range.contains(a.local)) continue;
    add_unique(facts.host_addresses, {a.local, 32});
    if (is_loopback(a.ifindex)) continue;
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

}  // namespace cordon
