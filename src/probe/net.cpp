#include "probe/net.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/ipv4.h"
#include "common/netlink.h"
#include "common/unique_fd.h"
#include "probe/util.h"

namespace cordon::probe::net {
namespace {

bool in_range(uint32_t a, uint32_t network, int prefix) { return ipv4_subnet_of(network, prefix).contains(a); }

// Errors connect() returns before anything leaves: the local stack refused.
bool local_refusal(int err) {
  switch (err) {
    case ENETUNREACH:
    case EHOSTUNREACH:
    case EINVAL:
    case EACCES:
    case EPERM:
    case EADDRNOTAVAIL:
    case EAFNOSUPPORT:
    case ENETDOWN:
    case ENOENT:
    case ENOTCONN: return true;
    default: return false;
  }
}

std::string route_hint(int err) {
  switch (err) {
    case EINVAL: return " (a blackhole route)";
    case EHOSTUNREACH: return " (an unreachable route)";
    case EACCES: return " (a prohibit route or a filter)";
    case ENETUNREACH: return " (no route)";
    case EPERM: return " (a filter)";
    default: return "";
  }
}

bool wait_for(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  double deadline = now_ms() + timeout_ms;
  for (;;) {
    int left = static_cast<int>(deadline - now_ms());
    if (left < 0) left = 0;
    int r = ::poll(&p, 1, left);
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) return false;
  }
}

std::string banner(int fd) {
  if (!wait_for(fd, POLLIN, 300)) return "";
  char buffer[128];
  ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
  if (n <= 0) return "";
  return printable(std::string(buffer, static_cast<size_t>(n)), 40);
}

std::string dns_query() {
  // id 0x6370, RD, one question: cordon-probe.invalid A IN (.invalid never resolves).
  std::string q("\x63\x70\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00", 12);
  for (const char* label : {"cordon-probe", "invalid"}) {
    q += static_cast<char>(std::strlen(label));
    q += label;
  }
  q += std::string("\x00\x00\x01\x00\x01", 5);
  return q;
}

}  // namespace

const char* class_name(AddrClass c) {
  switch (c) {
    case AddrClass::Private: return "RFC1918";
    case AddrClass::Cgnat: return "CGNAT";
    case AddrClass::LinkLocal: return "link-local";
    case AddrClass::Loopback: return "loopback";
    case AddrClass::Connected: return "connected-subnet";
    case AddrClass::Other: return "other";
  }
  return "other";
}

AddrClass classify_v4(uint32_t a, const std::vector<Subnet>& subnets) {
  if (in_range(a, 0x0A000000, 8) || in_range(a, 0xAC100000, 12) || in_range(a, 0xC0A80000, 16))
    return AddrClass::Private;
  if (in_range(a, 0x64400000, 10)) return AddrClass::Cgnat;
  if (in_range(a, 0xA9FE0000, 16)) return AddrClass::LinkLocal;
  if (in_range(a, 0x7F000000, 8)) return AddrClass::Loopback;
  for (const auto& s : subnets)
    if (in_range(a, s.network, s.prefix)) return AddrClass::Connected;
  return AddrClass::Other;
}

std::vector<Subnet> connected_subnets() {
  std::vector<Subnet> out;
  try {
    netlink::Socket sock;
    std::vector<int> loopbacks;
    for (const auto& link : sock.links())
      if (link.flags & IFF_LOOPBACK) loopbacks.push_back(link.index);
    for (const auto& a : sock.addresses(AF_INET)) {
      bool lo = false;
      for (int i : loopbacks) lo |= (i == a.ifindex);
      if (lo || a.prefix_len >= 32 || a.prefix_len == 0) continue;
      Subnet s;
      s.prefix = a.prefix_len;
      s.network = ipv4_subnet_of(a.local, a.prefix_len).address;
      s.own = a.local;
      s.text = ipv4_to_string(s.network) + "/" + std::to_string(s.prefix) + " (own " + ipv4_to_string(a.local) + ")";
      out.push_back(s);
    }
  } catch (const std::exception&) {
  }
  return out;
}

uint32_t default_gateway() {
  try {
    netlink::Socket sock;
    for (const auto& r : sock.routes(AF_INET))
      if (r.table == RT_TABLE_MAIN && r.dst_len == 0 && r.type == RTN_UNICAST && r.gateway) return r.gateway;
  } catch (const std::exception&) {
  }
  return 0;
}

std::string route_text(uint32_t address) {
  try {
    netlink::Socket sock;
    netlink::Lookup l = sock.lookup(address);
    std::string text = "route " + netlink::route_type_name(l.type);
    if (l.gateway) text += " via " + ipv4_to_string(l.gateway);
    return text;
  } catch (const std::exception& e) {
    return "route lookup failed";
  }
}

void tcp_attempt(const NetTarget& t, Tally& tally, bool loopback_service, int timeout_ms) {
  const std::string what = "tcp " + t.text().substr(4);
  UniqueFd fd(::socket(t.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    tally.blocked(what + ": socket() " + errno_name(errno));
    return;
  }
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&t.sa), t.sa_len) == 0) {
    std::string b = banner(fd.get());
    tally.escaped(what + ": connected" + (b.empty() ? "" : " (\"" + b + "\")"));
    return;
  }
  int err = errno;
  if (err != EINPROGRESS) {
    if (err == ECONNREFUSED) {
      if (loopback_service) tally.blocked(what + ": ECONNREFUSED (nothing of the host listens here)");
      else tally.escaped(what + ": ECONNREFUSED from the far end (reached)");
    } else if (local_refusal(err)) {
      tally.blocked(what + ": " + errno_name(err) + route_hint(err));
    } else {
      tally.inconclusive(what + ": " + errno_name(err));
    }
    return;
  }
  if (!wait_for(fd.get(), POLLOUT, timeout_ms)) {
    tally.inconclusive(what + ": no answer within " + std::to_string(timeout_ms) + " ms (dropped or slow)");
    return;
  }
  int so_error = 0;
  socklen_t len = sizeof so_error;
  ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &len);
  if (so_error == 0) {
    std::string b = banner(fd.get());
    tally.escaped(what + ": connected" + (b.empty() ? "" : " (\"" + b + "\")"));
  } else if (so_error == ECONNREFUSED) {
    if (loopback_service) tally.blocked(what + ": ECONNREFUSED (nothing of the host listens here)");
    else tally.escaped(what + ": ECONNREFUSED from the far end (reached)");
  } else {
    // An error after the attempt started: an ICMP error from the network, or a neighbour
    // that never answered. Neither proves nor disproves that the target is reachable.
    tally.inconclusive(what + ": " + errno_name(so_error) + " after the attempt started (ICMP error or no neighbour)");
  }
}

void udp_attempt(const NetTarget& t, Tally& tally, int timeout_ms) {
  const std::string what = "udp " + t.text().substr(4);
  UniqueFd fd(::socket(t.family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    tally.blocked(what + ": socket() " + errno_name(errno));
    return;
  }
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&t.sa), t.sa_len) != 0) {
    int err = errno;
    tally.add(local_refusal(err) ? Verdict::Blocked : Verdict::Inconclusive,
              what + ": connect " + errno_name(err) + route_hint(err));
    return;
  }
  const std::string query = dns_query();
  if (::send(fd.get(), query.data(), query.size(), 0) < 0) {
    int err = errno;
    tally.add(local_refusal(err) ? Verdict::Blocked : Verdict::Inconclusive,
              what + ": send " + errno_name(err) + route_hint(err));
    return;
  }
  if (!wait_for(fd.get(), POLLIN, timeout_ms)) {
    tally.inconclusive(what + ": query sent, no reply within " + std::to_string(timeout_ms) + " ms");
    return;
  }
  char buffer[512];
  ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, MSG_DONTWAIT);
  if (n >= 0) {
    tally.escaped(what + ": reply of " + std::to_string(n) + " bytes");
  } else if (errno == ECONNREFUSED) {
    tally.escaped(what + ": port unreachable came back (reached the host)");
  } else {
    tally.inconclusive(what + ": recv " + errno_name(errno));
  }
}

void udp_nosend(int family, const std::string& address, uint16_t port, Tally& tally,
                const std::string& why_inconclusive) {
  sockaddr_storage sa{};
  socklen_t len = 0;
  uint32_t v4 = 0;
  if (family == AF_INET) {
    auto* sin = reinterpret_cast<sockaddr_in*>(&sa);
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    ::inet_pton(AF_INET, address.c_str(), &sin->sin_addr);
    v4 = ntohl(sin->sin_addr.s_addr);
    len = sizeof(sockaddr_in);
  } else {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(&sa);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(port);
    ::inet_pton(AF_INET6, address.c_str(), &sin6->sin6_addr);
    len = sizeof(sockaddr_in6);
  }
  const std::string what = "udp connect " + (family == AF_INET6 ? "[" + address + "]" : address);
  UniqueFd fd(::socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    tally.blocked(what + ": socket() " + errno_name(errno));
    return;
  }
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&sa), len) != 0) {
    int err = errno;
    tally.add(local_refusal(err) ? Verdict::Blocked : Verdict::Inconclusive,
              what + ": " + errno_name(err) + route_hint(err));
    return;
  }
  std::string route = family == AF_INET ? " (" + route_text(v4) + ")" : "";
  tally.inconclusive(what + ": routable" + route + ", nothing sent; " + why_inconclusive);
}

void abstract_attempt(const std::string& name, Tally& tally) {
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  size_t n = std::min(name.size(), sizeof sa.sun_path - 1);
  std::memcpy(sa.sun_path + 1, name.data(), n);
  socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  int last = 0;
  for (int type : {SOCK_STREAM, SOCK_SEQPACKET, SOCK_DGRAM}) {
    UniqueFd fd(::socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd.valid()) {
      tally.blocked("@" + name + ": socket() " + errno_name(errno));
      return;
    }
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&sa), len) == 0 || errno == EAGAIN ||
        errno == EINPROGRESS) {
      tally.escaped("@" + printable(name, 50) + ": connected");
      return;
    }
    last = errno;
    if (last != EPROTOTYPE) break;
  }
  tally.blocked("@" + printable(name, 50) + ": " + errno_name(last) +
                (last == ECONNREFUSED ? " (no such socket in this network namespace)"
                 : last == EPERM      ? " (Landlock's abstract-socket scope: the listener is outside this session)"
                                      : ""));
}

bool path_socket_attempt(const std::string& path, Tally& tally) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    tally.blocked(path + ": " + errno_name(errno));
    return false;
  }
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (path.size() >= sizeof sa.sun_path) {
    tally.inconclusive(path + ": path too long for a socket address");
    return true;
  }
  std::memcpy(sa.sun_path, path.data(), path.size());
  int last = 0;
  for (int type : {SOCK_STREAM, SOCK_SEQPACKET, SOCK_DGRAM}) {
    UniqueFd fd(::socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd.valid()) {
      tally.blocked(path + ": socket() " + errno_name(errno));
      return true;
    }
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&sa), sizeof sa) == 0 || errno == EAGAIN ||
        errno == EINPROGRESS) {
      tally.escaped(path + ": connected");
      return true;
    }
    last = errno;
    if (last != EPROTOTYPE) break;
  }
  tally.blocked(path + ": " + errno_name(last) + (last == ECONNREFUSED ? " (stale: nothing listens)" : ""));
  return true;
}

std::string Listener::text() const {
  return (family == AF_INET6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
}

std::vector<Listener> tcp_listeners() {
  std::vector<Listener> out;
  for (int family : {AF_INET, AF_INET6}) {
    auto text = read_text(family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6", 1 << 20);
    if (!text) continue;
    std::istringstream in(*text);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line) && out.size() < 256) {
      std::istringstream fields(line);
      std::vector<std::string> f;
      std::string word;
      while (fields >> word && f.size() < 10) f.push_back(word);
      if (f.size() < 10 || f[3] != "0A") continue;  // TCP_LISTEN
      size_t colon = f[1].find(':');
      if (colon == std::string::npos) continue;
      Listener l;
      l.family = family;
      l.port = static_cast<uint16_t>(std::strtoul(f[1].substr(colon + 1).c_str(), nullptr, 16));
      l.inode = std::strtoul(f[9].c_str(), nullptr, 10);
      char buffer[INET6_ADDRSTRLEN] = {};
      if (family == AF_INET) {
        in_addr a{};
        a.s_addr = static_cast<uint32_t>(std::strtoul(f[1].substr(0, 8).c_str(), nullptr, 16));
        ::inet_ntop(AF_INET, &a, buffer, sizeof buffer);
      } else {
        in6_addr a{};
        for (int i = 0; i < 4 && colon >= 32; ++i)
          a.s6_addr32[i] = static_cast<uint32_t>(
              std::strtoul(f[1].substr(static_cast<size_t>(i) * 8, 8).c_str(), nullptr, 16));
        ::inet_ntop(AF_INET6, &a, buffer, sizeof buffer);
      }
      l.address = buffer;
      out.push_back(l);
    }
  }
  return out;
}

std::vector<std::pair<std::string, unsigned long>> abstract_listeners() {
  std::vector<std::pair<std::string, unsigned long>> out;
  auto text = read_text("/proc/net/unix", 4 << 20);
  if (!text) return out;
  std::istringstream in(*text);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line) && out.size() < 512) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    std::string word;
    while (fields >> word && f.size() < 8) f.push_back(word);
    if (f.size() < 8 || f[7].empty() || f[7][0] != '@') continue;
    unsigned long flags = std::strtoul(f[3].c_str(), nullptr, 16);
    bool listening = flags & 0x10000;  // __SO_ACCEPTCON
    bool datagram = f[4] == "0002";
    if (!listening && !datagram) continue;
    out.emplace_back(f[7], std::strtoul(f[6].c_str(), nullptr, 10));
  }
  return out;
}

}  // namespace cordon::probe::net
