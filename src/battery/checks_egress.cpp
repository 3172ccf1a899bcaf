// Check 31: egress limited to the session's network policy. In the loopback-only modes
// (allowlist, offline) the namespace has no interface but loopback and no route out, a direct
// connect fails before anything is sent, no resolver answers, and (allowlist) the proxy is
// there and refuses what the allow-list does not name. The jail's own promise is checks 19-20.
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "battery/check.h"
#include "battery/sys.h"
#include "common/ipv4.h"
#include "common/netlink.h"
#include "common/network_modes.h"
#include "common/resolv_conf.h"
#include "common/unique_fd.h"

namespace cordon::battery {
namespace {

constexpr int kAnswerWaitMs = 1500;
// Outside every blocked range and never routed on the internet (TEST-NET-1), and a public one.
constexpr const char* kDirectSamples[] = {"192.0.2.1", "1.1.1.1", "10.0.0.1"};

std::vector<std::string> non_loopback_links(netlink::Socket& nl) {
  std::vector<std::string> out;
  for (const auto& l : nl.links())
    if (!(l.flags & IFF_LOOPBACK)) out.push_back(l.name);
  return out;
}

// A TCP connect that may only be tried once the kernel has said there is no route for it:
// it then fails locally, before any packet, and the errno is the evidence.
std::string direct_connect_problem(netlink::Socket& nl, const std::string& target) {
  netlink::Lookup route = nl.lookup(ipv4_or_zero(target));
  if (route.type == RTN_UNICAST) return target + " has a forwarding route";
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(443);
  ::inet_pton(AF_INET, target.c_str(), &to.sin_addr);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&to), sizeof to) == 0 || errno == EINPROGRESS)
    return "a connect to " + target + ":443 was started";
  return "";
}

// A DNS query for a name only this check knows: on loopback it is sent (nothing leaves the
// namespace); elsewhere only when no route exists, so it fails locally.
std::string resolver_problem(netlink::Socket& nl, const std::string& server) {
  const uint32_t a = ipv4_or_zero(server);
  if (a == 0) return "";  // an IPv6 nameserver: there is no IPv6 route here at all (check 20 / probe 10)
  const bool loopback = (a >> 24) == 127;
  if (!loopback && nl.lookup(a).type == RTN_UNICAST) return "resolver " + server + " has a forwarding route";
  UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(53);
  to.sin_addr.s_addr = htonl(a);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) return "";
  // id 0x4352, one question: cordon-check.invalid A IN.
  static const unsigned char query[] = {0x43, 0x52, 1,   0,   0,   1,   0,   0,   0,   0,   0,   0,   12,
                                        'c',  'o',  'r', 'd', 'o', 'n', '-', 'c', 'h', 'e', 'c', 'k', 7,
                                        'i',  'n',  'v', 'a', 'l', 'i', 'd', 0,   0,   1,   0,   1};
  if (::send(fd.get(), query, sizeof query, MSG_NOSIGNAL) < 0) return "";
  pollfd p{fd.get(), POLLIN, 0};
  if (::poll(&p, 1, kAnswerWaitMs) <= 0) return "";
  unsigned char answer[512];
  return ::recv(fd.get(), answer, sizeof answer, MSG_DONTWAIT) > 0 ? "resolver " + server + ":53 answered" : "";
}

// The proxy's answer to a CONNECT for a name no allow-list names; "" when it refused (403).
std::string proxy_problem() {
  const char* https = std::getenv("HTTPS_PROXY");
  if (!https || proxy_url() != https) return "HTTPS_PROXY is not " + proxy_url();
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(kProxyPort);
  ::inet_pton(AF_INET, kProxyHost, &to.sin_addr);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&to), sizeof to) != 0)
    return errno_text(std::string("the proxy at ") + kProxyHost + ":" + std::to_string(kProxyPort), errno);
  const std::string ask = "CONNECT cordon-check.invalid:443 HTTP/1.1\r\nHost: cordon-check.invalid:443\r\n\r\n";
  if (::send(fd.get(), ask.data(), ask.size(), MSG_NOSIGNAL) < 0) return errno_text("writing to the proxy", errno);
  pollfd p{fd.get(), POLLIN, 0};
  char reply[64] = {};
  if (::poll(&p, 1, kAnswerWaitMs * 2) <= 0 || ::recv(fd.get(), reply, sizeof reply - 1, 0) <= 0)
    return "the proxy did not answer a CONNECT";
  const std::string status(reply, std::string(reply).find("\r\n"));
  return status.rfind("HTTP/1.1 403", 0) == 0 ? "" : "the proxy answered \"" + status + "\" to a name not allowed";
}

}  // namespace

Outcome check_egress_policy(const Context& c) {
  if (!c.session) return pass(std::string(kNoSession) + ": no intended network mode");
  const NetworkMode mode = c.session->network.mode;
  const std::string name = network_mode_name(mode);
  if (!c.session->network.loopback_only())
    return pass("mode " + name + ": no destination limit promised (" +
                    (mode == NetworkMode::EgressJail ? "lateral ranges: checks 19-20" : "host network") + ")",
                "none in this mode");
  netlink::Socket nl;
  std::vector<std::string> problems;
  if (auto links = non_loopback_links(nl); !links.empty())
    problems.push_back("interfaces besides loopback: " + join_some(links));
  for (const char* target : kDirectSamples)
    if (std::string p = direct_connect_problem(nl, target); !p.empty()) problems.push_back(p);
  std::vector<std::string> servers = resolv_conf_nameservers(read_file("/etc/resolv.conf", 1 << 16).value_or(""));
  for (const char* fixed : {"8.8.8.8", "1.1.1.1"}) servers.emplace_back(fixed);
  for (const auto& server : servers)
    if (std::string p = resolver_problem(nl, server); !p.empty()) problems.push_back(p);
  if (mode == NetworkMode::Allowlist)
    if (std::string p = proxy_problem(); !p.empty()) problems.push_back(p);
  if (!problems.empty()) return fail("mode " + name + ": " + join_some(problems, 6));
  std::string note = "mode " + name + ": loopback only, no route out (direct connects fail locally), no resolver";
  if (mode == NetworkMode::Allowlist)
    note += "; the proxy at " + c.session->network.proxy + " refuses names not allowed (403)";
  return pass(note);
}

}  // namespace cordon::battery
