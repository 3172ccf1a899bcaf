// Egress policy family (12-17): what network.mode = "allowlist" and "offline" promise beyond
// the jail's lateral blocks. Nothing here sends a packet off loopback: a direct destination is
// asked of the kernel's routing (a UDP connect, which sends nothing) and counts as ESCAPED when
// a route out exists at all, since these modes promise none; DNS queries go only to loopback
// resolvers; the proxy is on loopback and is asked, never a destination behind it. In the host
// and jail modes (which promise no destination limit) each probe says so and attempts nothing.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/network_modes.h"
#include "common/resolv_conf.h"
#include "common/unique_fd.h"
#include "probe/context.h"
#include "probe/probe.h"
#include "probe/util.h"

namespace cordon::probe {
namespace {

constexpr int kReplyWaitMs = 3000;
// Public addresses outside every blocked range: TEST-NET-1 (never routed on the internet),
// and two well-known resolvers (asked of the routing table only).
constexpr const char* kPublicSamples[] = {"192.0.2.1", "1.1.1.1"};
constexpr const char* kPublicResolvers[] = {"8.8.8.8", "1.1.1.1", "9.9.9.9"};

// False (with the reason recorded) when the session's mode promises no destination limit.
bool policy_applies(const Context& ctx, Tally& tally) {
  if (ctx.session && ctx.session->network.loopback_only()) return true;
  const std::string mode = ctx.session ? network_mode_name(ctx.session->network.mode) : "unknown (no session file)";
  tally.blocked("not attempted: network.mode " + mode +
                " promises no destination limit (this probe tests the allowlist and offline modes)");
  return false;
}

bool allowlist(const Context& ctx) { return ctx.session && ctx.session->network.mode == NetworkMode::Allowlist; }

// Whether the kernel has a route for `address` (a UDP connect sends nothing).
void no_route_out(const std::string& address, uint16_t port, const std::string& what, Tally& tally) {
  UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  ::inet_pton(AF_INET, address.c_str(), &to.sin_addr);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&to), sizeof to) == 0)
    tally.escaped(what + " " + address + ":" + std::to_string(port) + ": a route out exists (nothing sent)");
  else tally.blocked(what + " " + address + ":" + std::to_string(port) + ": " + errno_name(errno));
}

// One request to the proxy on loopback; returns its status line ("" when none).
std::string ask_proxy(const std::string& request, Tally& tally, const std::string& what) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(kProxyPort);
  ::inet_pton(AF_INET, kProxyHost, &to.sin_addr);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    tally.blocked(what + ": no proxy (" + errno_name(errno) + ")");
    return "";
  }
  if (::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL) < 0) {
    tally.inconclusive(what + ": writing to the proxy: " + errno_name(errno));
    return "";
  }
  pollfd p{fd.get(), POLLIN, 0};
  char reply[256] = {};
  if (::poll(&p, 1, kReplyWaitMs) <= 0 || ::recv(fd.get(), reply, sizeof reply - 1, 0) <= 0) {
    tally.inconclusive(what + ": the proxy did not answer");
    return "";
  }
  std::string text(reply);
  return text.substr(0, text.find("\r\n"));
}

// 403 is the refusal; any other answer means the proxy admitted the destination (a 502 is an
// admitted destination that did not resolve or connect).
void through_proxy(const std::string& host_port, bool absolute_form, Tally& tally) {
  const std::string what = (absolute_form ? "GET http://" : "CONNECT ") + host_port;
  const std::string request = absolute_form
                                  ? "GET http://" + host_port + "/ HTTP/1.1\r\nHost: " + host_port + "\r\n\r\n"
                                  : "CONNECT " + host_port + " HTTP/1.1\r\nHost: " + host_port + "\r\n\r\n";
  std::string status = ask_proxy(request, tally, what);
  if (status.empty()) return;
  if (status.rfind("HTTP/1.1 403", 0) == 0) tally.blocked(what + ": " + status);
  else tally.escaped(what + ": admitted (" + status + ")");
}

void probe_denied_name(const Context& ctx, Tally& tally) {
  if (!policy_applies(ctx, tally)) return;
  through_proxy("cordon-probe-denied.invalid:443", false, tally);
  if (allowlist(ctx)) through_proxy("cordon-probe-denied.invalid:80", true, tally);
}

void probe_raw_ip(const Context& ctx, Tally& tally) {
  if (!policy_applies(ctx, tally)) return;
  for (const char* a : kPublicSamples) no_route_out(a, 443, "direct", tally);
  if (allowlist(ctx)) through_proxy("192.0.2.1:443", false, tally);
}

void probe_public_resolver(const Context& ctx, Tally& tally) {
  if (!policy_applies(ctx, tally)) return;
  for (const char* r : kPublicResolvers) no_route_out(r, 53, "DNS to", tally);
}

// A query whose first label carries data ("cordon-probe-<pid>-data"): sent only to a loopback
// resolver; any answer means the query reached something that resolves.
void label_query(const std::string& server, Tally& tally) {
  in_addr a{};
  if (::inet_pton(AF_INET, server.c_str(), &a) != 1) {
    tally.blocked("nameserver " + server + ": not IPv4 (no IPv6 route here)");
    return;
  }
  if ((ntohl(a.s_addr) >> 24) != 127) {
    no_route_out(server, 53, "DNS to the configured nameserver", tally);
    return;
  }
  UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(53);
  to.sin_addr = a;
  std::string label = "cordon-probe-" + std::to_string(::getpid()) + "-exfil";
  std::string q = {'\x51', '\x52', 1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  q += static_cast<char>(label.size()) + label + "\x07" + "example" + std::string(1, '\0') + std::string("\0\1\0\1", 4);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 ||
      ::send(fd.get(), q.data(), q.size(), MSG_NOSIGNAL) < 0) {
    tally.blocked("query to " + server + ":53: " + errno_name(errno));
    return;
  }
  pollfd p{fd.get(), POLLIN, 0};
  char answer[512];
  if (::poll(&p, 1, 1000) > 0 && ::recv(fd.get(), answer, sizeof answer, MSG_DONTWAIT) > 0)
    tally.escaped("query " + label + ".example to " + server + ":53 was answered");
  else tally.blocked("query to " + server + ":53: " + (errno == ECONNREFUSED ? "ECONNREFUSED" : "no answer in 1 s"));
}

void probe_dns_label(const Context& ctx, Tally& tally) {
  if (!policy_applies(ctx, tally)) return;
  for (const auto& server : resolv_conf_nameservers(read_text("/etc/resolv.conf").value_or("")))
    label_query(server, tally);
  // The system resolver as any program uses it (resolv.conf, nsswitch): it must find nothing.
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  const std::string name = "cordon-probe-" + std::to_string(::getpid()) + "-label.example";
  int rc = ::getaddrinfo(name.c_str(), nullptr, &hints, &found);
  if (rc == 0) {
    ::freeaddrinfo(found);
    tally.escaped("getaddrinfo(" + name + ") resolved");
  } else {
    tally.blocked("getaddrinfo(" + name + "): " + ::gai_strerror(rc));
  }
}

// A name the proxy must refuse however it is listed: it resolves to loopback.
void probe_rebinding(const Context& ctx, Tally& tally) {
  if (!policy_applies(ctx, tally)) return;
  through_proxy("localhost:" + std::to_string(kProxyPort), false, tally);
  through_proxy("localhost:22", false, tally);
}

// A child that drops every proxy variable and goes direct: the same routes as anyone.
void probe_bypass_child(const Context& ctx, Tally& tally) {
  if (!policy_applies(ctx, tally)) return;
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    tally.inconclusive(std::string("pipe: ") + errno_name(errno));
    return;
  }
  pid_t child = ::fork();
  if (child == 0) {
    ::close(report[0]);
    for (const char* v : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"})
      ::unsetenv(v);
    Tally own;
    for (const char* a : kPublicSamples) no_route_out(a, 80, "child without proxy variables, direct", own);
    char v = own.verdict() == Verdict::Escaped ? 'E' : 'B';
    ssize_t ignored = ::write(report[1], &v, 1);
    (void)ignored;
    ::_exit(0);
  }
  ::close(report[1]);
  char v = 0;
  ssize_t n = child > 0 ? ::read(report[0], &v, 1) : -1;
  ::close(report[0]);
  if (child > 0) ::waitpid(child, nullptr, 0);
  if (n != 1) tally.inconclusive("the child did not report");
  else if (v == 'E') tally.escaped("a child without the proxy variables has a route out");
  else tally.blocked("a child without the proxy variables has no route out (ENETUNREACH)");
}

}  // namespace

std::vector<ProbeDef> policy_probes() {
  return {
      {"12", "egress-policy-denied-name", "egress", "ask the proxy for a name the allow-list does not name",
       "403 from the proxy (or no proxy: offline)", probe_denied_name},
      {"13", "egress-policy-raw-ip", "egress", "reach a public IP directly, and through the proxy",
       "no route out; 403 for the raw IP", probe_raw_ip},
      {"14", "egress-policy-public-resolver", "egress", "send DNS to a public resolver (8.8.8.8, 1.1.1.1, 9.9.9.9)",
       "no route out (ENETUNREACH)", probe_public_resolver},
      {"15", "egress-policy-dns-label", "egress", "carry data out in a DNS query name",
       "no resolver answers; getaddrinfo finds nothing", probe_dns_label},
      {"16", "egress-policy-rebinding", "egress", "ask the proxy for a name that resolves to loopback",
       "403 from the proxy (or no proxy: offline)", probe_rebinding},
      {"17", "egress-policy-bypass-child", "egress", "a child process that ignores the proxy variables goes direct",
       "no route out", probe_bypass_child},
  };
}

}  // namespace cordon::probe
