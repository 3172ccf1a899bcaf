#include "launcher/network/routes.h"

#include <fcntl.h>
#include <linux/fib_rules.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "common/ipv4.h"
#include "common/network_opt_out.h"
#include "common/text.h"

namespace cordon::jail {
namespace {

std::string fix() {
  return "this is a bug or an unusual kernel; nothing ran. Report it with the message above, or, to run without "
         "network confinement, " +
         egress_jail_opt_out();
}

Error step_failed(const std::string& step, const std::string& detail) {
  return Error("egress jail: " + step + " failed: " + detail, fix());
}

netlink::Route block(const Ipv4Prefix& p, uint8_t type) {
  netlink::Route r;
  r.type = type;
  r.dst = p.address;
  r.dst_len = static_cast<uint8_t>(p.length);
  return r;
}

netlink::Route via_gateway(uint32_t dst, int length, uint32_t gateway, int oif) {
  netlink::Route r;
  r.dst = dst;
  r.dst_len = static_cast<uint8_t>(length);
  r.gateway = gateway;
  r.oif = oif;
  r.flags = RTNH_F_ONLINK;
  return r;
}

#ifdef CORDON_TEST_HOOKS
// TEST-ONLY fault injection, compiled only with -DCORDON_TEST_HOOKS=ON (never in a release):
//   CORDON_TEST_FAIL_ROUTE=N  the Nth route add (1-based) is sent malformed, so the kernel
//                             itself refuses it (exercises the real error path);
//   CORDON_TEST_SKIP_ROUTE=N  the Nth intended route is neither added nor expected: a
//                             "partial" jail that passes read-back, for the battery's tests;
//   CORDON_TEST_DELAY_ROUTES_MS=N  programming starts N ms late: a test sees bwrap waiting at
//                             the command gate meanwhile.
int test_hook(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::atoi(value) : 0;
}
#else
int test_hook(const char*) { return 0; }
#endif

// Writes "1" to an IPv6 sysctl of this network namespace (/proc/sys/net follows the caller's
// namespace). Returns false when IPv6 is absent from the kernel altogether.
bool write_disable(const char* path) {
  const int err = write_control_file(path, "1");
  if (err == ENOENT) return false;  // only the open can say so
  if (err) throw step_failed("disabling IPv6", errno_text(path, err));
  return true;
}

}  // namespace

std::vector<netlink::Route> intended_routes(const JailPlan& plan, int oif) {
  uint32_t gateway = *parse_ipv4_address(plan.gateway, nullptr);
  std::vector<netlink::Route> routes;
  for (const auto& p : plan.blackholes) routes.push_back(block(p, RTN_BLACKHOLE));
  for (const auto& p : plan.unreachable) routes.push_back(block(p, RTN_UNREACHABLE));
  routes.push_back(via_gateway(0, 0, gateway, oif));
  for (const auto& p : plan.allow) routes.push_back(via_gateway(p.address, p.length, gateway, oif));
  return routes;
}

void program_jail_network(const JailPlan& plan) {
  if (int delay_ms = test_hook("CORDON_TEST_DELAY_ROUTES_MS")) ::usleep(static_cast<useconds_t>(delay_ms) * 1000);
  std::string step = "opening a netlink socket";
  try {
    netlink::Socket nl;

    step = "finding pasta's interface";
    uint32_t gateway = *parse_ipv4_address(plan.gateway, nullptr);
    std::vector<netlink::Route> found = nl.routes(AF_INET);
    const netlink::Route* pasta_default = nullptr;
    for (const auto& r : found)
      if (r.table == RT_TABLE_MAIN && r.dst_len == 0 && r.type == RTN_UNICAST) pasta_default = &r;
    if (!pasta_default || !pasta_default->oif)
      throw step_failed(step, "pasta configured no default route in the namespace");
    if (pasta_default->gateway != gateway)
      throw step_failed(step, "pasta's gateway is " + ipv4_to_string(pasta_default->gateway) + ", the plan expected " +
                                  plan.gateway + " (did the host's routes change?)");
    int oif = pasta_default->oif;

    step = "flushing the main table";
    for (const auto& r : found)
      if (r.table == RT_TABLE_MAIN) nl.delete_route(r);

    std::vector<netlink::Route> expected;
    int fail_at = test_hook("CORDON_TEST_FAIL_ROUTE");
    int skip_at = test_hook("CORDON_TEST_SKIP_ROUTE");
    int index = 0;
    for (netlink::Route route : intended_routes(plan, oif)) {
      ++index;
      if (index == skip_at) continue;
      step = "adding route " + std::to_string(index) + " (" + route.describe() + ")";
      expected.push_back(route);
      if (index == fail_at) route.oif = oif;  // a device on a non-unicast route: the kernel says no
      if (index == fail_at && route.type == RTN_UNICAST) route.type = RTN_BLACKHOLE;
      nl.add_route(route);
    }

    step = "disabling IPv6";
    // Both knobs: "all" covers lo and pasta's tap now, "default" any later interface.
    if (write_disable("/proc/sys/net/ipv6/conf/all/disable_ipv6"))
      write_disable("/proc/sys/net/ipv6/conf/default/disable_ipv6");

    step = "reading the routes back";
    verify_jail_network(nl, expected);
  } catch (const Error& e) {
    std::string what = e.what();
    if (what.rfind("egress jail:", 0) == 0) throw;
    throw step_failed(step, what);
  }
}

void verify_jail_network(netlink::Socket& nl, const std::vector<netlink::Route>& expected) {
  std::string problems;
  auto note = [&](const std::string& text) { problems += (problems.empty() ? "" : "; ") + text; };

  std::vector<bool> seen(expected.size(), false);
  for (const auto& r : nl.routes(AF_INET)) {
    if (r.table == RT_TABLE_LOCAL && (r.type == RTN_LOCAL || r.type == RTN_BROADCAST)) continue;
    bool matched = false;
    for (size_t i = 0; i < expected.size() && !matched; ++i)
      if (!seen[i] && r.same_as(expected[i]) && r.protocol == expected[i].protocol) seen[i] = matched = true;
    if (!matched) note("unexpected route: " + r.describe());
  }
  for (size_t i = 0; i < expected.size(); ++i)
    if (!seen[i]) note("missing route: " + expected[i].describe());

  // The kernel's defaults: local (0), main (32766), default (32767), no selectors.
  const std::pair<uint32_t, uint32_t> defaults[] = {
      {0, RT_TABLE_LOCAL}, {32766, RT_TABLE_MAIN}, {32767, RT_TABLE_DEFAULT}};
  std::vector<netlink::Rule> rules = nl.rules(AF_INET);
  bool rules_ok = rules.size() == 3;
  for (size_t i = 0; rules_ok && i < 3; ++i)
    rules_ok = rules[i].priority == defaults[i].first && rules[i].table == defaults[i].second &&
               rules[i].action == FR_ACT_TO_TBL && !rules[i].src_len && !rules[i].dst_len && !rules[i].selectors;
  if (!rules_ok) {
    std::string list;
    for (const auto& rule : rules) list += (list.empty() ? "" : ", ") + rule.describe();
    note("routing rules are not the kernel's defaults: " + list);
  }

  for (const auto& r : nl.routes(AF_INET6)) note("IPv6 route left: " + r.describe());
  for (const auto& a : nl.addresses(AF_INET6)) note("IPv6 address left: " + a.text);

  if (!problems.empty())
    throw Error("egress jail: the namespace's network does not match the plan: " + problems, fix());
}

}  // namespace cordon::jail
