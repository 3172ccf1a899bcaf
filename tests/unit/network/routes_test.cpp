// The libmnl wrapper against the real kernel, inside a private network namespace the test
// creates (fork + unshare(USER|NET)): routes are added, dumped, looked up and deleted there,
// and the jail's read-back is shown to catch an extra or a missing route. Nothing is sent
// anywhere: the namespace has only its own loopback.
#include "launcher/network/routes.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <net/if.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>

#include "common/error.h"
#include "common/netlink.h"
#include "launcher/network/jail_plan.h"

namespace cordon {
namespace {

using netlink::Route;

uint32_t ip(const char* text) { return *parse_ipv4_address(text, nullptr); }

bool write_file(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// Runs `body` in a forked child inside fresh user + network namespaces. The body returns ""
// on success or a description of what failed. "SKIP: ..." when namespaces are unavailable.
std::string in_private_netns(const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return "pipe failed";
  uid_t uid = ::getuid();
  gid_t gid = ::getgid();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::alarm(20);  // bounded, whatever happens
    std::string result;
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
      result = std::string("SKIP: unshare: ") + std::strerror(errno);
    } else {
      write_file("/proc/self/setgroups", "deny");
      write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n");
      write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n");
      try {
        result = body();
      } catch (const std::exception& e) {
        result = std::string("exception: ") + e.what();
      }
    }
    ssize_t ignored = ::write(fds[1], result.data(), result.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) out += " (child died, status " + std::to_string(status) + ")";
  return out;
}

#define RUN_IN_NETNS(...)                                      \
  do {                                                         \
    std::string result = in_private_netns(__VA_ARGS__);        \
    if (result.rfind("SKIP:", 0) == 0) GTEST_SKIP() << result; \
    EXPECT_EQ(result, "");                                     \
  } while (0)

#define CHECK(cond, text) \
  if (!(cond)) return std::string(text) + " [" #cond "]"

int loopback_index(netlink::Socket& nl) {
  for (const auto& l : nl.links())
    if (l.name == "lo") return l.index;
  return 0;
}

Route blackhole(const char* dst, int len, uint8_t type = RTN_BLACKHOLE) {
  Route r;
  r.type = type;
  r.dst = ip(dst);
  r.dst_len = static_cast<uint8_t>(len);
  return r;
}

Route via(const char* dst, int len, const char* gw, int oif) {
  Route r;
  r.dst = ip(dst);
  r.dst_len = static_cast<uint8_t>(len);
  r.gateway = ip(gw);
  r.oif = oif;
  r.flags = RTNH_F_ONLINK;
  return r;
}

std::vector<Route> main_table(netlink::Socket& nl) {
  std::vector<Route> out;
  for (const auto& r : nl.routes(AF_INET))
    if (r.table == RT_TABLE_MAIN) out.push_back(r);
  return out;
}

TEST(Netlink, LinksAddressesAndRulesOfAFreshNamespace) {
  RUN_IN_NETNS([] {
    netlink::Socket nl;
    int lo = loopback_index(nl);
    CHECK(lo > 0, "no lo");
    nl.set_link_up(lo);
    bool lo_up = false;
    for (const auto& l : nl.links())
      if (l.index == lo) lo_up = (l.flags & IFF_UP) && (l.flags & IFF_LOOPBACK);
    CHECK(lo_up, "lo not up");
    auto addrs = nl.addresses(AF_INET);
    CHECK(addrs.size() == 1 && addrs[0].text == "127.0.0.1/8" && addrs[0].local == ip("127.0.0.1"),
          "expected 127.0.0.1/8 only");
    auto rules = nl.rules(AF_INET);
    CHECK(rules.size() == 3, "expected the 3 default rules");
    CHECK(rules[0].table == RT_TABLE_LOCAL && rules[1].table == RT_TABLE_MAIN && rules[2].table == RT_TABLE_DEFAULT,
          "default rule tables");
    for (const auto& r : rules) CHECK(r.selectors == 0, "default rule with selectors: " + r.describe());
    CHECK(main_table(nl).empty(), "main table not empty");
    return std::string();
  });
}

TEST(Netlink, AddDumpLookupDelete) {
  RUN_IN_NETNS([] {
    netlink::Socket nl;
    int lo = loopback_index(nl);
    nl.set_link_up(lo);
    std::vector<Route> wanted = {blackhole("10.0.0.0", 8), blackhole("169.254.0.0", 16, RTN_UNREACHABLE),
                                 blackhole("192.0.2.0", 24, RTN_PROHIBIT), via("0.0.0.0", 0, "192.0.2.1", lo),
                                 via("10.9.9.9", 32, "192.0.2.1", lo)};
    for (const auto& r : wanted) nl.add_route(r);

    std::vector<Route> got = main_table(nl);
    CHECK(got.size() == wanted.size(), "dumped " + std::to_string(got.size()) + " routes");
    for (const auto& w : wanted) {
      bool found = false;
      for (const auto& g : got) found = found || (g.same_as(w) && g.protocol == RTPROT_STATIC);
      CHECK(found, "not dumped back: " + w.describe());
    }

    struct {
      const char* dst;
      uint8_t type;
    } lookups[] = {{"10.1.2.3", RTN_BLACKHOLE}, {"169.254.169.254", RTN_UNREACHABLE},
                   {"192.0.2.1", RTN_PROHIBIT}, {"198.18.0.10", RTN_UNICAST},
                   {"10.9.9.9", RTN_UNICAST},   {"127.0.0.1", RTN_LOCAL}};
    for (const auto& l : lookups) {
      netlink::Lookup answer = nl.lookup(ip(l.dst));
      CHECK(answer.type == l.type, std::string(l.dst) + " looked up as " + netlink::route_type_name(answer.type) +
                                       " (errno " + std::to_string(answer.error) + ")");
    }
    netlink::Lookup internet = nl.lookup(ip("198.18.0.10"));
    CHECK(internet.gateway == ip("192.0.2.1") && internet.oif == lo && internet.table == RT_TABLE_MAIN,
          "internet lookup next hop");

    nl.delete_route(wanted[0]);
    CHECK(nl.lookup(ip("10.1.2.3")).type == RTN_UNICAST, "10/8 still blackholed after delete");
    CHECK(main_table(nl).size() == wanted.size() - 1, "delete did not remove exactly one route");
    return std::string();
  });
}

TEST(Netlink, NoRouteAtAllIsReported) {
  RUN_IN_NETNS([] {
    netlink::Socket nl;
    netlink::Lookup answer = nl.lookup(ip("198.18.0.10"));
    CHECK(answer.type == RTN_UNSPEC && answer.error == ENETUNREACH, "expected ENETUNREACH");
    return std::string();
  });
}

TEST(Netlink, KernelRefusalsCarryTheExtendedAckText) {
  RUN_IN_NETNS([] {
    netlink::Socket nl;
    int lo = loopback_index(nl);
    nl.set_link_up(lo);
    Route bad = blackhole("10.0.0.0", 8);
    bad.oif = lo;  // a device on a blackhole: refused
    try {
      nl.add_route(bad);
      return std::string("blackhole with a device was accepted");
    } catch (const Error& e) {
      std::string what = e.what();
      CHECK(what.find("add route blackhole 10.0.0.0/8") != std::string::npos, "no step in: " + what);
      CHECK(what.find("Invalid argument") != std::string::npos, "no errno in: " + what);
      CHECK(what.find("(kernel: ") != std::string::npos, "no extended ack in: " + what);
    }
    nl.add_route(blackhole("10.0.0.0", 8));
    try {
      nl.add_route(blackhole("10.0.0.0", 8));
      return std::string("duplicate route accepted");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("File exists") != std::string::npos, e.what());
    }
    return std::string();
  });
}

TEST(Netlink, JailReadBackCatchesExtraAndMissingRoutes) {
  RUN_IN_NETNS([] {
    netlink::Socket nl;
    int lo = loopback_index(nl);
    nl.set_link_up(lo);
    jail::JailPlan plan;
    plan.blackholes = {{ip("10.0.0.0"), 8}, {ip("192.0.2.0"), 24}};
    plan.unreachable = {{ip("169.254.0.0"), 16}};
    plan.allow = {{ip("198.51.100.53"), 32}};
    plan.gateway = "192.0.2.1";
    std::vector<Route> expected = jail::intended_routes(plan, lo);
    for (const auto& r : expected) nl.add_route(r);
    // The jail also disables IPv6; without that the read-back must refuse.
    try {
      jail::verify_jail_network(nl, expected);
      return std::string("read-back accepted a namespace with IPv6");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("IPv6 address left: ::1/128") != std::string::npos, e.what());
    }
    CHECK(write_file("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1"), "cannot disable IPv6 in the namespace");
    jail::verify_jail_network(nl, expected);  // exact: passes

    Route extra = blackhole("198.18.0.0", 15);
    nl.add_route(extra);
    try {
      jail::verify_jail_network(nl, expected);
      return std::string("read-back accepted an extra route");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("unexpected route: blackhole 198.18.0.0/15") != std::string::npos, e.what());
    }
    nl.delete_route(extra);
    nl.delete_route(expected[0]);
    try {
      jail::verify_jail_network(nl, expected);
      return std::string("read-back accepted a missing route");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("missing route: blackhole 10.0.0.0/8") != std::string::npos, e.what());
    }
    return std::string();
  });
}

}  // namespace
}  // namespace cordon
