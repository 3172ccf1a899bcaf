// Network attempts for the egress probes. Only three kinds of traffic exist here:
//  - connect() on a UDP socket, which sends nothing (a route lookup in the kernel);
//  - TCP connects and UDP datagrams to addresses the caller passed with --net-targets (a test
//    world it built) or to the loopback ports / abstract names it passed for host services;
//  - netlink RTM_GETROUTE lookups, which send nothing.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "probe/context.h"
#include "probe/probe.h"

namespace cordon::probe::net {

enum class AddrClass { Private, Cgnat, LinkLocal, Loopback, Connected, Other };
const char* class_name(AddrClass c);

// Range class of an IPv4 address (host byte order); Connected when it lies in one of
// `subnets` (each {network, prefix length}) and in no named range.
struct Subnet {
  uint32_t network = 0;
  uint8_t prefix = 0;
  uint32_t own = 0;  // this namespace's address on it
  std::string text;  // "192.0.2.0/24 (own 192.0.2.2)"
};
AddrClass classify_v4(uint32_t address, const std::vector<Subnet>& subnets);

// The IPv4 subnets connected to a non-loopback interface of this network namespace, and the
// default gateway (0 when none), read over netlink. Never throws; empty on error.
std::vector<Subnet> connected_subnets();
uint32_t default_gateway();

// TCP connect (non-blocking, bounded). ESCAPED when connected or refused by the far end,
// BLOCKED on a local refusal (ENETUNREACH, EHOSTUNREACH, EINVAL, EACCES, EPERM, ...),
// INCONCLUSIVE on a timeout. `loopback_service`: a refusal means "nothing of the host listens
// here" and is BLOCKED.
void tcp_attempt(const NetTarget& target, Tally& tally, bool loopback_service = false, int timeout_ms = 1500);

// A DNS query datagram; ESCAPED on any reply (or an ICMP refusal), BLOCKED on a local
// refusal, INCONCLUSIVE when nothing comes back in time.
void udp_attempt(const NetTarget& target, Tally& tally, int timeout_ms = 1500);

// connect() on a UDP socket: the kernel routes but sends nothing. A local failure is
// BLOCKED; success only shows a forwarding route and is INCONCLUSIVE ("nothing sent").
void udp_nosend(int family, const std::string& address, uint16_t port, Tally& tally,
                const std::string& why_inconclusive);

// An abstract unix socket (name without the leading NUL): ESCAPED when connected, BLOCKED
// on ECONNREFUSED/ENOENT-like failures.
void abstract_attempt(const std::string& name, Tally& tally);

// A filesystem unix socket. ESCAPED when connected; BLOCKED otherwise. Returns true when the
// path existed (for the evidence).
bool path_socket_attempt(const std::string& path, Tally& tally);

struct Listener {
  int family = AF_INET;
  std::string address;
  uint16_t port = 0;
  unsigned long inode = 0;
  std::string text() const;
};
// Listening TCP sockets in /proc/net/tcp{,6} (this network namespace).
std::vector<Listener> tcp_listeners();
// Listening abstract unix sockets in /proc/net/unix ("@name" texts with their inodes).
std::vector<std::pair<std::string, unsigned long>> abstract_listeners();

// Text of a route lookup for an IPv4 address (host order): "route: blackhole".
std::string route_text(uint32_t address);

}  // namespace cordon::probe::net
