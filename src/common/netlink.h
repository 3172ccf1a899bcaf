// A small rtnetlink client over libmnl, shared by the launcher (the egress jail programs and
// reads back its routes) and the battery (which inspects the routes from inside the sandbox).
// Only requests to the kernel of the caller's own network namespace: nothing goes on a wire.
// IPv4 addresses are host byte order, as in launcher/ipv4.h.
#pragma once

#include <linux/rtnetlink.h>
#include <netinet/in.h>

#include <cstdint>
#include <string>
#include <vector>

struct mnl_socket;

namespace cordon::netlink {

// One route as the kernel reports it, or as the jail asks for it.
struct Route {
  uint8_t family = AF_INET;
  uint8_t type = RTN_UNICAST;  // RTN_UNICAST, RTN_BLACKHOLE, RTN_UNREACHABLE, ...
  uint8_t scope = RT_SCOPE_UNIVERSE;
  uint8_t protocol = RTPROT_STATIC;
  uint32_t table = RT_TABLE_MAIN;
  uint32_t flags = 0;  // rtm_flags; RTNH_F_ONLINK for an on-link gateway
  uint32_t dst = 0;    // IPv4 destination (0 for IPv6 routes: see dst_text)
  uint8_t dst_len = 0;
  uint32_t gateway = 0;   // 0 = none
  int oif = 0;            // 0 = none
  uint32_t priority = 0;  // metric
  std::string dst_text;   // "10.0.0.0/8", "fe80::/64": filled by dumps, any family

  // "blackhole 10.0.0.0/8", "unicast 0.0.0.0/0 via 192.0.2.1 dev 2 onlink scope universe"
  std::string describe() const;
  // Same destination, kind and next hop (the fields the jail decides; not the metric).
  bool same_as(const Route& other) const;
};

struct Address {
  uint8_t family = AF_INET;
  int ifindex = 0;
  uint8_t prefix_len = 0;
  uint8_t scope = 0;
  uint32_t local = 0;  // IPv4: IFA_LOCAL (the interface's own address)
  uint32_t peer = 0;   // IPv4: IFA_ADDRESS (differs from local on point-to-point links)
  std::string text;    // "192.0.2.2/24", "fe80::1/64"
};

struct Rule {
  uint8_t family = AF_INET;
  uint8_t action = 0;  // FR_ACT_TO_TBL, ...
  uint32_t table = 0;
  uint32_t priority = 0;
  uint8_t src_len = 0;
  uint8_t dst_len = 0;
  int selectors = 0;  // attributes that narrow the rule (iif, oif, fwmark, ...)
  std::string describe() const;
};

struct Link {
  int index = 0;
  std::string name;
  unsigned flags = 0;  // IFF_UP, IFF_LOOPBACK, ...
};

// Result of RTM_GETROUTE for one destination: what a connect() to it would do.
// The kernel answers a lookup that ends in a blackhole / unreachable / prohibit route with an
// error (EINVAL / EHOSTUNREACH / EACCES, its fib_props table); they are mapped back to the type.
struct Lookup {
  uint8_t type = RTN_UNSPEC;  // RTN_UNSPEC: no route at all (ENETUNREACH) or another error
  uint32_t gateway = 0;
  int oif = 0;
  uint32_t table = 0;
  int error = 0;        // the kernel's errno for the lookup, 0 when it found a route
  std::string message;  // the kernel's extended-ack text, if any
};

class Socket {
 public:
  // Opens NETLINK_ROUTE with extended acks. Throws cordon::Error.
  Socket();
  ~Socket();
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  // Dumps. Throw cordon::Error naming the request and the kernel's message.
  std::vector<Route> routes(uint8_t family);  // every table
  std::vector<Address> addresses(uint8_t family);
  std::vector<Rule> rules(uint8_t family);
  std::vector<Link> links();

  Lookup lookup(uint32_t destination);  // IPv4, never throws for a routing answer

  // Changes. Throw cordon::Error with the kernel's extended-ack message.
  void add_route(const Route& route);  // create, exclusive
  void delete_route(const Route& route);
  void set_link_up(int ifindex);

 private:
  struct Reply;
  // Sends one request and collects every reply message until the ack / end of dump.
  Reply transact(void* request, const std::string& what);
  // A dump of `request` for `family` (the first byte of every rtnetlink fixed header):
  // the reply messages of type `reply_type`, each with its header. Throws on a failed dump.
  std::vector<std::string> dump(uint16_t request, uint16_t reply_type, size_t header_size, uint8_t family,
                                const std::string& what);

  mnl_socket* socket_ = nullptr;
  unsigned port_ = 0;
  unsigned sequence_ = 0;
};

// "blackhole", "unicast", ... for an RTN_* type.
std::string route_type_name(uint8_t type);

}  // namespace cordon::netlink
