// --selftest: the verdict rules that cannot be exercised on every kernel (kexec and module
// loading are compiled out of some kernels, so their "gate passed" branch may never be seen
// live), checked as pure functions. Prints one line per failed expectation.
#include "probe/selftest.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "common/env_names.h"
#include "common/print.h"
#include "common/text.h"
#include "probe/internal.h"
#include "probe/net.h"
#include "probe/probe.h"
#include "probe/report.h"

namespace cordon::probe {

namespace {

// Counts and prints the expectations that do not hold.
class Expectations {
 public:
  void operator()(bool ok, const std::string& what) {
    if (ok) return;
    print_out("selftest FAILED: " + terminal_safe(what) + "\n");
    ++failures_;
  }
  int failures() const { return failures_; }

 private:
  int failures_ = 0;
};

void expect_verdict_rules(Expectations& expect) {
  Tally t;
  expect(t.verdict() == Verdict::Inconclusive, "nothing attempted is INCONCLUSIVE");
  t.blocked("a");
  t.blocked("b");
  expect(t.verdict() == Verdict::Blocked, "all blocked is BLOCKED");
  t.inconclusive("c");
  expect(t.verdict() == Verdict::Inconclusive, "blocked + inconclusive is INCONCLUSIVE");
  t.escaped("d");
  expect(t.verdict() == Verdict::Escaped, "any escaped is ESCAPED");
  expect(t.evidence().rfind('d', 0) == 0, "the deciding attempt comes first");

  std::string text;
  expect(classify_gated(-1, EPERM, EINVAL, &text) == Verdict::Blocked, "gated EPERM is BLOCKED");
  expect(classify_gated(-1, EINVAL, EINVAL, &text) == Verdict::Escaped, "gated EINVAL (gate passed) is ESCAPED");
  expect(classify_gated(-1, EBADF, EBADF, &text) == Verdict::Escaped, "gated EBADF (gate passed) is ESCAPED");
  expect(classify_gated(0, 0, EINVAL, &text) == Verdict::Escaped, "gated success is ESCAPED");
  expect(classify_gated(-1, ENOSYS, EINVAL, &text) == Verdict::Blocked, "ENOSYS (absent) is BLOCKED");
  expect(classify_gated(-1, EFAULT, EINVAL, &text) == Verdict::Inconclusive, "unexpected errno is INCONCLUSIVE");
}

void expect_name_and_address_rules(Expectations& expect) {
  for (const char* name : {"GH_TOKEN", "GITHUB_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY",
                           "SSH_AUTH_SOCK", "DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "NPM_TOKEN", "MY_PASSWORD"})
    expect(credential_env_name(name), std::string(name) + " is credential-like");
  for (const char* name : {"PATH", "HOME", "LANG", "TERM", "IS_SANDBOX", "LC_ALL", "USER"})
    expect(!credential_env_name(name), std::string(name) + " is not credential-like");

  std::vector<net::Subnet> subnets = {{0xC0000200, 24, 0xC0000202, "192.0.2.0/24"}};
  expect(net::classify_v4(0x0A010203, subnets) == net::AddrClass::Private, "10.1.2.3 is RFC1918");
  expect(net::classify_v4(0xAC100505, subnets) == net::AddrClass::Private, "172.16.5.5 is RFC1918");
  expect(net::classify_v4(0xAC200505, subnets) == net::AddrClass::Other, "172.32.5.5 is not RFC1918");
  expect(net::classify_v4(0x64400101, subnets) == net::AddrClass::Cgnat, "100.64.1.1 is CGNAT");
  expect(net::classify_v4(0xA9FEA9FE, subnets) == net::AddrClass::LinkLocal, "169.254.169.254 is link-local");
  expect(net::classify_v4(0xC000024D, subnets) == net::AddrClass::Connected, "192.0.2.77 is on the connected subnet");
  expect(net::classify_v4(0xC612000A, subnets) == net::AddrClass::Other, "198.18.0.10 is other");
}

void expect_summaries(Expectations& expect) {
  ProbeResult b{"01", "a", "egress", Verdict::Blocked, "", 0};
  ProbeResult i{"02", "b", "egress", Verdict::Inconclusive, "", 0};
  ProbeResult e{"03", "c", "egress", Verdict::Escaped, "", 0};
  Summary ok = summarize({b, b}, 21);
  expect(ok.exit_code == kExitOk && ok.result_line == "RESULT: SANDBOX OK (21 checks + 2 probes)", "OK line");
  Summary inc = summarize({b, i}, 0);
  expect(inc.exit_code == kExitIncomplete &&
             inc.result_line.rfind("RESULT: AUDIT INCOMPLETE (1 inconclusive: 02 b", 0) == 0,
         "INCOMPLETE line");
  Summary leak = summarize({b, i, e}, 0);
  expect(leak.exit_code == kExitLeaking && leak.result_line.rfind("RESULT: SANDBOX LEAKING (1 escaped: 03 c", 0) == 0,
         "LEAKING line");
  expect(summarize({}, 0).exit_code == kExitIncomplete, "no probe run is INCOMPLETE");
}

void expect_registry(Expectations& expect) {
  std::set<std::string> ids, names;
  for (const auto& p : all_probes()) {
    expect(ids.insert(p.id).second, std::string("unique id ") + p.id);
    expect(names.insert(p.name).second, std::string("unique name ") + p.name);
    expect(std::strlen(p.id) == 2, std::string("two-digit id ") + p.id);
  }
  expect(all_probes().size() >= 30, "at least 30 probes");
}

}  // namespace

int run_selftest() {
  Expectations expect;
  expect_verdict_rules(expect);
  expect_name_and_address_rules(expect);
  expect_summaries(expect);
  expect_registry(expect);
  const int failures = expect.failures();
  printf_out("selftest: %s (%d failure%s)\n", failures ? "FAILED" : "ok", failures, failures == 1 ? "" : "s");
  return failures ? kExitSelftestFailed : 0;
}

}  // namespace cordon::probe
