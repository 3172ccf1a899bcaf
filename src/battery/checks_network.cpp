// Network checks over rtnetlink (dumps and route lookups: nothing is sent on any wire):
// the egress jail's routes (19) and what they do to representative destinations (20); and
// whether listening abstract unix sockets of the host are reachable (24).
#include <linux/rtnetlink.h>
#include <net/if.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "battery/check.h"
#include "battery/sys.h"
#include "common/egress_prefixes.h"
#include "common/ipv4.h"
#include "common/netlink.h"

namespace cordon::battery {
namespace {

using Prefix = Ipv4Prefix;

std::vector<Prefix> parse_all(const std::vector<std::string>& texts) {
  std::vector<Prefix> out;
  for (const auto& t : texts)
    if (auto p = parse_ipv4_cidr(t, nullptr)) out.push_back(*p);
  return out;
}

bool listed(const Prefix& p, const std::vector<Prefix>& list) {
  return std::find(list.begin(), list.end(), p) != list.end();
}

bool covered(uint32_t a, const std::vector<Prefix>& list) {
  return std::any_of(list.begin(), list.end(), [&](const Prefix& p) { return p.contains(a); });
}

struct NetState {
  std::vector<netlink::Route> main;  // main-table IPv4 routes
  std::vector<Prefix> connected;     // subnets of non-loopback IPv4 addresses
  std::vector<uint32_t> local_addresses;
  const netlink::Route* default_route = nullptr;
};

NetState gather(netlink::Socket& nl) {
  NetState s;
  for (auto& r : nl.routes(AF_INET))
    if (r.table == RT_TABLE_MAIN) s.main.push_back(r);
  for (const auto& r : s.main)
    if (r.dst_len == 0 && r.type == RTN_UNICAST && (!s.default_route || r.priority < s.default_route->priority))
      s.default_route = &r;
  std::set<int> loopback;
  for (const auto& l : nl.links())
    if (l.flags & IFF_LOOPBACK) loopback.insert(l.index);
  for (const auto& a : nl.addresses(AF_INET)) {
    if (loopback.count(a.ifindex) || (a.local >> 24) == 127) continue;
    s.local_addresses.push_back(a.local);
    Prefix subnet = ipv4_subnet_of(a.local, a.prefix_len);
    if (!listed(subnet, s.connected)) s.connected.push_back(subnet);
  }
  return s;
}

bool has_route(const NetState& s, uint8_t type, const Prefix& p) {
  return std::any_of(s.main.begin(), s.main.end(), [&](const netlink::Route& r) {
    return r.type == type && r.dst_len == p.length && r.dst == p.address;
  });
}

bool jail_disabled(const Context& c) { return c.session && !c.session->network.jailed(); }

// Why checks 19 and 20 have nothing to assert: the mode, and where its own check is.
std::string no_jail_note(const Context& c, const std::string& what) {
  if (c.session->network.loopback_only())
    return std::string("mode ") + network_mode_name(c.session->network.mode) +
           ": no jail; loopback only, no route anywhere (check 31)";
  return "jail disabled (network.egress_jail = false): " + what;
}

bool forwarding(const netlink::Lookup& l) { return l.type == RTN_UNICAST; }

std::string verdict(const netlink::Lookup& l) {
  if (l.type == RTN_UNICAST) return l.gateway ? "forwardable via " + ipv4_to_string(l.gateway) : "forwardable on-link";
  if (l.type == RTN_UNSPEC) return "no route" + (l.error ? " (" + errno_name(l.error) + ")" : std::string());
  return netlink::route_type_name(l.type);
}

}  // namespace

Outcome check_jail_routes(const Context& c) {
  if (jail_disabled(c))
    return pass(no_jail_note(c, "private ranges are reachable through the host"),
                "none: egress jail disabled by configuration");
  netlink::Socket nl;
  NetState s = gather(nl);
  std::vector<Prefix> allow = c.session ? parse_all(c.session->network.allow) : std::vector<Prefix>{};

  // What must be blackholed / unreachable: the session's list plus the fixed set and every
  // connected subnet (unless deliberately allowed by an equal allow_ip entry).
  std::vector<Prefix> want_blackhole = c.session ? parse_all(c.session->network.blackholes) : std::vector<Prefix>{};
  std::vector<Prefix> want_unreachable = c.session ? parse_all(c.session->network.unreachable) : std::vector<Prefix>{};
  for (const auto& p : fixed_blackholes())
    if (!listed(p, allow) && !listed(p, want_blackhole)) want_blackhole.push_back(p);
  for (const auto& p : s.connected)
    if (!listed(p, allow) && !listed(p, want_blackhole) && !listed(p, want_unreachable)) want_blackhole.push_back(p);
  for (const auto& p : fixed_unreachable())
    if (!listed(p, allow) && !listed(p, want_unreachable)) want_unreachable.push_back(p);

  size_t jail_routes = 0;
  for (const auto& r : s.main)
    jail_routes += r.type == RTN_BLACKHOLE || r.type == RTN_UNREACHABLE || r.type == RTN_PROHIBIT;

  if (!c.session && !s.default_route) {
    bool gatewayed = std::any_of(s.main.begin(), s.main.end(), [](const netlink::Route& r) { return r.gateway != 0; });
    if (!gatewayed)
      return pass(std::string(kNoSession) + ": no default route and no gateway: no egress to confine",
                  "isolated network namespace");
  }
  if (!c.session && jail_routes == 0)
    return fail("default route via " + ipv4_to_string(s.default_route ? s.default_route->gateway : 0) +
                " and no blackhole routes: private ranges are reachable (no egress jail)");

  std::vector<std::string> missing;
  for (const auto& p : want_blackhole)
    if (!has_route(s, RTN_BLACKHOLE, p)) missing.push_back("blackhole " + p.str());
  for (const auto& p : want_unreachable)
    if (!has_route(s, RTN_UNREACHABLE, p)) missing.push_back("unreachable " + p.str());
  if (!missing.empty())
    return fail("jail routes missing: " + join_some(missing, 8) + " (" + std::to_string(jail_routes) +
                " blocking routes present: partially programmed)");
  if (!s.default_route) return fail("no default route: the jail is programmed but cannot forward");
  std::string note = std::to_string(want_blackhole.size()) + " blackholes, " + std::to_string(want_unreachable.size()) +
                     " unreachable, default via " + ipv4_to_string(s.default_route->gateway);
  if (!c.session) note = std::string(kNoSession) + ": " + note;
  return pass(note);
}

namespace {

// The private destinations check 20 looks up: fixed samples, single-host blackholes, and the
// first two addresses of each connected subnet (but not this namespace's own addresses).
std::vector<uint32_t> private_samples(const NetState& s) {
  std::vector<uint32_t> samples;
  for (const char* a : {"10.1.2.3", "172.16.5.5", "192.168.7.7", "100.64.1.1", "169.254.169.254"})
    samples.push_back(ipv4_or_zero(a));
  for (const auto& p : fixed_blackholes())
    if (p.length == 32) samples.push_back(p.address);  // single hosts (Azure's wireserver): the address itself
  for (const auto& subnet : s.connected)
    for (uint32_t a : {subnet.address, subnet.address + 1})
      if (std::find(s.local_addresses.begin(), s.local_addresses.end(), a) == s.local_addresses.end())
        samples.push_back(a);
  return samples;
}

// The jail's own gateway and DNS forwarder, as the session names them: public traffic leaves
// through the gateway, the gateway itself is blocked exactly when a blackhole covers it, the
// forwarder is forwardable. Returns the problem ("" when none); adds to `note`.
std::string jail_endpoints_problem(const Context& c, netlink::Socket& nl, const netlink::Lookup& pub,
                                   std::string& note) {
  if (!c.session) return {};
  const auto& net = c.session->network;
  if (!net.gateway.empty()) {
    auto gw = parse_ipv4_address(net.gateway, nullptr);
    if (gw && pub.gateway != *gw)
      return "public traffic goes via " + ipv4_to_string(pub.gateway) + ", not the jail's gateway " + net.gateway;
    if (gw) {
      netlink::Lookup g = nl.lookup(*gw);
      bool should_block = covered(*gw, parse_all(net.blackholes));
      if (should_block == forwarding(g))
        return "gateway " + net.gateway + " is " + verdict(g) + ", expected " +
               (should_block ? "blocked (routed through, not reachable)" : "forwardable");
      note += "; gateway itself " + verdict(g);
    }
  }
  if (!net.dns_forward.empty())
    if (auto dns = parse_ipv4_address(net.dns_forward, nullptr)) {
      netlink::Lookup d = nl.lookup(*dns);
      if (!forwarding(d)) return "DNS forwarder " + net.dns_forward + " is " + verdict(d);
    }
  return {};
}

}  // namespace

Outcome check_jail_behaviour(const Context& c) {
  if (jail_disabled(c))
    return pass(no_jail_note(c, "nothing to assert"), "none: egress jail disabled by configuration");
  netlink::Socket nl;
  NetState s = gather(nl);
  std::vector<Prefix> allow = c.session ? parse_all(c.session->network.allow) : std::vector<Prefix>{};
  const std::vector<uint32_t> samples = private_samples(s);
  std::vector<std::string> leaks, skipped;
  for (uint32_t a : samples) {
    if (covered(a, allow)) {
      skipped.push_back(ipv4_to_string(a));
      continue;
    }
    netlink::Lookup l = nl.lookup(a);
    if (forwarding(l)) leaks.push_back(ipv4_to_string(a) + " " + verdict(l));
  }
  if (!leaks.empty()) return fail("private destinations get a forwarding route: " + join_some(leaks, 6));

  const uint32_t kPublic = ipv4_or_zero("1.1.1.1");
  netlink::Lookup pub = nl.lookup(kPublic);
  if (!c.session && !s.default_route && !forwarding(pub))
    return pass(std::string(kNoSession) + ": " + std::to_string(samples.size()) +
                    " private destinations and the internet unroutable (no egress at all)",
                "isolated network namespace");
  if (!forwarding(pub)) return fail("public address 1.1.1.1 is not forwardable (" + verdict(pub) + "): egress broken");
  std::string note = std::to_string(samples.size() - skipped.size()) + " private destinations blocked; 1.1.1.1 " +
                     verdict(pub);
  if (std::string problem = jail_endpoints_problem(c, nl, pub, note); !problem.empty()) return fail(problem);
  if (!skipped.empty()) note += "; allowed deliberately: " + join_some(skipped);
  if (!c.session) note = std::string(kNoSession) + ": " + note;
  return pass(note);
}

Outcome check_abstract_sockets(const Context& c) {
  // Listening abstract sockets of this network namespace (they live per network namespace).
  struct Listener {
    unsigned long long inode;
    std::string name;
  };
  std::vector<Listener> listeners;
  if (auto text = read_file("/proc/net/unix", 4 << 20)) {
    size_t start = text->find('\n');  // header
    while (start != std::string::npos && start + 1 < text->size()) {
      size_t end = text->find('\n', start + 1);
      std::string line = text->substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
      start = end;
      // Num RefCount Protocol Flags Type St Inode [Path]
      char num[32] = {}, path[512] = {};
      unsigned long refs = 0, proto = 0, flags = 0, type = 0, st = 0;
      unsigned long long inode = 0;
      int n = std::sscanf(line.c_str(), "%31s %lx %lx %lx %lx %lx %llu %511s", num, &refs, &proto, &flags, &type, &st,
                          &inode, path);
      if (n == 8 && path[0] == '@' && (flags & 0x10000 /* __SO_ACCEPTCON: listening */))
        listeners.push_back({inode, path});
    }
  }
  // Which of them belong to processes this sandbox can see (its own).
  std::vector<std::string> foreign;
  if (!listeners.empty()) {
    std::set<unsigned long long> held;
    if (auto pids = list_dir("/proc"))
      for (const auto& pid : *pids) {
        if (pid.empty() || !std::isdigit(static_cast<unsigned char>(pid[0]))) continue;
        auto fds = list_dir("/proc/" + pid + "/fd");
        if (!fds) continue;
        for (const auto& fd : *fds) {
          std::string link = read_link("/proc/" + pid + "/fd/" + fd);
          if (link.rfind("socket:[", 0) == 0) held.insert(std::strtoull(link.c_str() + 8, nullptr, 10));
        }
      }
    for (const auto& l : listeners)
      if (!held.count(l.inode)) foreign.push_back(l.name);
  }
  std::string own = c.own_ns("net");
  std::string host = c.host_ns("net");
  if (!host.empty() && own == host)
    return fail(
        "shares the launcher's network namespace (" + own + "): the host's abstract unix sockets are reachable" +
            (foreign.empty() ? std::string(" (none listening right now)")
                             : " (" + std::to_string(foreign.size()) + " listening: " + join_some(foreign, 6) + ")") +
            (c.session && c.session->landlock.scoped("abstract_unix_socket")
                 ? "; Landlock's abstract-socket scope refuses connecting to them (check 33 measures "
                   "the layer), but the namespace is shared: only the egress jail's private one closes it"
                 : "; only the egress jail's private namespace closes this"),
        "none: network namespace shared with the host");
  if (!foreign.empty())
    return fail("abstract sockets of processes outside the sandbox are listening here: " + join_some(foreign, 6));
  if (host.empty())
    return pass(std::string(kNoSession) + ": no listening abstract socket of an outside process is visible in " + own);
  return pass(own + ", launcher " + host + "; " + std::to_string(listeners.size()) +
              " abstract listeners, all the sandbox's own");
}

}  // namespace cordon::battery
