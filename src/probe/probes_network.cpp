// Egress family (01-11): lateral movement out of the sandbox's network view.
//
// Without --net-targets nothing is sent: each range probe connect()s a UDP socket to
// representative addresses, which only asks the kernel for a route. A local refusal
// (blackhole -> EINVAL, unreachable -> EHOSTUNREACH, prohibit -> EACCES, no route ->
// ENETUNREACH) is BLOCKED; a forwarding route is INCONCLUSIVE, because proving reachability
// would need a packet to a real host. With --net-targets (a test world the caller built) the
// probes connect for real.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <sstream>

#include "common/ipv4.h"
#include "common/netlink.h"
#include "common/resolv_conf.h"
#include "common/unique_fd.h"
#include "probe/context.h"
#include "probe/net.h"
#include "probe/probe.h"
#include "probe/uring.h"
#include "probe/util.h"

namespace cordon::probe {
namespace {

using net::AddrClass;

constexpr size_t kMaxTargetsPerProbe = 4;

uint32_t v4_of(const NetTarget& t) { return ntohl(reinterpret_cast<const sockaddr_in*>(&t.sa)->sin_addr.s_addr); }

// TCP targets of one IPv4 class, attempted for real; otherwise the no-send route test.
void range_probe(const Context& ctx, Tally& tally, AddrClass wanted, const std::vector<std::string>& representatives) {
  auto subnets = net::connected_subnets();
  size_t tried = 0;
  for (const auto& t : ctx.options.net_targets) {
    if (!t.tcp || t.family != AF_INET || tried >= kMaxTargetsPerProbe) continue;
    if (net::classify_v4(v4_of(t), subnets) != wanted) continue;
    net::tcp_attempt(t, tally);
    ++tried;
  }
  if (tried) return;
  for (const auto& address : representatives)
    net::udp_nosend(AF_INET, address, 9, tally,
                    std::string("no --net-targets in the ") + net::class_name(wanted) + " range");
}

void probe_rfc1918(const Context& ctx, Tally& tally) {
  range_probe(ctx, tally, AddrClass::Private, {"10.1.2.3", "172.16.5.5", "192.168.7.7"});
}

void probe_cgnat(const Context& ctx, Tally& tally) { range_probe(ctx, tally, AddrClass::Cgnat, {"100.64.1.1"}); }

void probe_link_local(const Context& ctx, Tally& tally) {
  range_probe(ctx, tally, AddrClass::LinkLocal, {"169.254.169.254"});
}

// A neighbour on each connected subnet: neither this namespace's own address nor the
// default gateway (which a jail deliberately keeps reachable).
void probe_connected_subnet(const Context& ctx, Tally& tally) {
  auto subnets = net::connected_subnets();
  size_t tried = 0;
  for (const auto& t : ctx.options.net_targets) {
    if (!t.tcp || t.family != AF_INET || tried >= kMaxTargetsPerProbe) continue;
    if (net::classify_v4(v4_of(t), subnets) != AddrClass::Connected) continue;
    net::tcp_attempt(t, tally);
    ++tried;
  }
  if (tried) return;
  if (subnets.empty()) {
    tally.blocked("no IPv4 subnet is connected to any interface of this network namespace");
    return;
  }
  const uint32_t gateway = net::default_gateway();
  for (const auto& s : subnets) {
    uint32_t broadcast = s.network | (s.prefix >= 31 ? 0 : (~0u >> s.prefix));
    uint32_t pick = 0;
    for (uint32_t candidate = broadcast - 1; candidate > s.network && candidate + 4 > broadcast; --candidate) {
      if (candidate != s.own && candidate != gateway) {
        pick = candidate;
        break;
      }
    }
    if (!pick) continue;
    net::udp_nosend(AF_INET, ipv4_to_string(pick), 9, tally, "no --net-targets on the connected subnet " + s.text);
  }
}

std::vector<std::string> private_nameservers() {
  std::vector<std::string> out;
  auto subnets = net::connected_subnets();
  for (const auto& value : resolv_conf_nameservers(read_text("/etc/resolv.conf", 65536).value_or(""))) {
    auto a = parse_ipv4_address(value, nullptr);
    if (!a) continue;
    AddrClass c = net::classify_v4(*a, subnets);
    if (c != AddrClass::Loopback && c != AddrClass::Other) out.push_back(value);
  }
  return out;
}

// A resolver other than the one the sandbox is given: the host's own (often private)
// resolver or a cloud VPC resolver, reached directly over UDP.
void probe_udp_resolver(const Context& ctx, Tally& tally) {
  size_t tried = 0;
  for (const auto& t : ctx.options.net_targets) {
    if (t.tcp || tried >= kMaxTargetsPerProbe) continue;
    net::udp_attempt(t, tally);
    ++tried;
  }
  if (tried) return;
  std::vector<std::string> resolvers = private_nameservers();
  for (const char* fixed : {"10.0.0.2", "169.254.169.253"})
    if (std::find(resolvers.begin(), resolvers.end(), fixed) == resolvers.end()) resolvers.emplace_back(fixed);
  for (const auto& r : resolvers) net::udp_nosend(AF_INET, r, 53, tally, "no udp --net-targets given");
}

void probe_host_loopback(const Context& ctx, Tally& tally) {
  for (uint16_t port : ctx.options.host_loopback_ports) {
    NetTarget t;
    t.tcp = true;
    t.address = "127.0.0.1";
    t.port = port;
    auto* sin = reinterpret_cast<sockaddr_in*>(&t.sa);
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    t.sa_len = sizeof(sockaddr_in);
    net::tcp_attempt(t, tally, /*loopback_service=*/true);
  }
  if (!ctx.options.host_loopback_ports.empty()) return;
  // Nothing to attempt: say what this namespace shows, without connecting to any of it.
  std::vector<std::string> listening;
  for (const auto& l : net::tcp_listeners()) listening.push_back(l.text());
  if (!listening.empty())
    tally.inconclusive("no --host-loopback-port given; listening in this network namespace (not connected to): " +
                       join_limited(listening));
  else
    tally.inconclusive(
        "no --host-loopback-port given and nothing listens in this network namespace: nothing to attempt");
}

void probe_host_abstract(const Context& ctx, Tally& tally) {
  for (const auto& name : ctx.options.host_abstract) net::abstract_attempt(name, tally);
  if (!ctx.options.host_abstract.empty()) return;
  std::vector<std::string> names;
  for (const auto& [name, inode] : net::abstract_listeners()) names.push_back(printable(name, 40));
  if (!names.empty())
    tally.inconclusive("no --host-abstract given; abstract sockets in this network namespace (not connected to): " +
                       join_limited(names));
  else
    tally.inconclusive("no --host-abstract given and no abstract socket in this network namespace: nothing to attempt");
}

void try_socket(Tally& tally, int domain, int type, int protocol, const std::string& what) {
  UniqueFd fd(::socket(domain, type | SOCK_CLOEXEC, protocol));
  if (fd.valid()) tally.escaped(what + " socket created (nothing sent)");
  else tally.blocked(what + ": " + errno_name(errno));
}

void probe_raw_socket(const Context&, Tally& tally) {
  try_socket(tally, AF_INET, SOCK_RAW, IPPROTO_ICMP, "raw IPv4/ICMP");
  try_socket(tally, AF_INET6, SOCK_RAW, IPPROTO_ICMPV6, "raw IPv6/ICMPv6");
}

void probe_packet_socket(const Context&, Tally& tally) {
  // Protocol 0: the socket receives nothing until bound; creating it is the capability.
  try_socket(tally, AF_PACKET, SOCK_RAW, 0, "AF_PACKET raw");
  try_socket(tally, AF_PACKET, SOCK_DGRAM, 0, "AF_PACKET dgram");
}

void probe_ipv6_route(const Context& ctx, Tally& tally) {
  size_t tried = 0;
  for (const auto& t : ctx.options.net_targets) {
    if (t.family != AF_INET6 || tried >= kMaxTargetsPerProbe) continue;
    if (t.tcp) net::tcp_attempt(t, tally);
    else net::udp_attempt(t, tally);
    ++tried;
  }
  if (tried) return;
  // A ULA neighbour, a global address, and an IPv4-mapped private address (which must go
  // through the IPv4 routes, not around them).
  for (const char* address : {"fd12:3456:789a::1", "2001:db8::1", "::ffff:10.1.2.3"})
    net::udp_nosend(AF_INET6, address, 9, tally, "no IPv6 --net-targets given");
}

void probe_io_uring_socket(const Context&, Tally& tally) {
  auto r = uring::socket_through_ring(AF_INET, SOCK_DGRAM, 0);
  if (r.setup_err) {
    tally.blocked("io_uring_setup: " + errno_name(r.setup_err));
  } else if (!r.completed) {
    tally.inconclusive("ring created but the submission failed: " + r.detail);
  } else if (r.op_result >= 0) {
    tally.escaped("ring created and IORING_OP_SOCKET returned a socket (the syscall filter never saw it)");
  } else if (r.op_result == -EINVAL || r.op_result == -EOPNOTSUPP) {
    tally.inconclusive("ring created; this kernel has no IORING_OP_SOCKET (" + errno_name(-r.op_result) + ")");
  } else {
    tally.inconclusive("ring created; IORING_OP_SOCKET failed: " + errno_name(-r.op_result));
  }
}

}  // namespace

std::vector<ProbeDef> egress_probes() {
  return {
      {"01", "egress-rfc1918", "egress", "reach RFC1918 addresses (10/8, 172.16/12, 192.168/16)",
       "connect fails locally (EINVAL blackhole, EHOSTUNREACH, ENETUNREACH)", probe_rfc1918},
      {"02", "egress-cgnat", "egress", "reach a CGNAT address (100.64/10)", "local refusal", probe_cgnat},
      {"03", "egress-link-local", "egress", "reach link-local / cloud metadata (169.254.169.254)", "local refusal",
       probe_link_local},
      {"04", "egress-connected-subnet", "egress", "reach a neighbour on a connected subnet (not the gateway)",
       "local refusal, or no connected subnet at all", probe_connected_subnet},
      {"05", "egress-udp-resolver", "egress", "send DNS over UDP to an alternate resolver",
       "connect/send refused locally", probe_udp_resolver},
      {"06", "egress-host-loopback", "egress", "reach a TCP service on the host's loopback",
       "ECONNREFUSED: nothing of the host listens in this namespace", probe_host_loopback},
      {"07", "egress-host-abstract", "egress", "connect to an abstract unix socket of the host",
       "ECONNREFUSED: no such name in this network namespace; EPERM: the Landlock abstract-socket scope",
       probe_host_abstract},
      {"08", "egress-raw-socket", "egress", "open raw IPv4/IPv6 sockets", "EPERM", probe_raw_socket},
      {"09", "egress-packet-socket", "egress", "open AF_PACKET sockets", "EPERM", probe_packet_socket},
      {"10", "egress-ipv6-route", "egress", "reach IPv6 neighbours / the IPv6 internet around the IPv4 jail",
       "ENETUNREACH (no IPv6 route) or a local refusal", probe_ipv6_route},
      {"11", "egress-io-uring-socket", "egress", "create a socket through io_uring (invisible to the filter)",
       "io_uring_setup EPERM", probe_io_uring_socket},
  };
}

}  // namespace cordon::probe
