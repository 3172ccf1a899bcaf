// The egress jail, end to end, in a network world the test builds (tests/integration/
// networld.sh): the real cordon binary launched inside a fake host, probes run inside the
// sandbox against listeners on LAN, metadata, "internet" and loopback addresses. Positive
// controls first (without the jail every probe gets through), then the jail, tampering,
// fail-closed sabotage and teardown. Needs root to build the world; the jailed launch also
// runs as an unprivileged user.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <regex>
#include <string>
#include <vector>

#include "cgroup_scope.h"
#include "common/mountinfo.h"
#include "common/json_codec.h"
#include "jail_world.h"
#include "support.h"

namespace cordon::testing {
namespace {

// Every battery check holds: no FAIL, and at most check 27 WARNs (default budgets a launch
// here cannot place, e.g. inside the world's own mount namespace).
void expect_every_check_holds(const std::string& output) {
  std::smatch m;
  ASSERT_TRUE(std::regex_search(output, m, std::regex("Summary: ([0-9]+) PASS / (?:([0-9]+) WARN / )?([0-9]+) FAIL")))
      << output;
  EXPECT_EQ(m[3].str(), "0") << output;
  const int warned = m[2].matched ? std::stoi(m[2].str()) : 0;
  EXPECT_LE(warned, 1) << output;
  EXPECT_EQ(std::stoi(m[1].str()) + warned, 34) << output;
  EXPECT_EQ(output.find("[WARN] ") == std::string::npos || output.find("[WARN] 27 ") != std::string::npos, true)
      << output;
}


NetWorld* world = nullptr;
std::string world_problem;

// LAN hosts, metadata, Azure wireserver, a neighbour on the host's own subnet, the gateway,
// and an address of the host itself that no connected subnet covers (a public /32 on its lo).
const std::string kHostOwn = "198.19.7.7";
const std::vector<std::string> kBlocked = {"10.1.2.3",      "172.16.5.5", "192.168.7.7", "100.64.1.1", "169.254.169.254",
                                           "168.63.129.16", "192.0.2.77", "192.0.2.1",   kHostOwn};
const std::string kInternet = "198.18.0.10";
const std::string kAllowed = "10.9.9.9";
const std::string kLanResolver = "10.53.0.53";

std::vector<std::string> probe_specs() {
  std::vector<std::string> specs;
  for (const auto& a : kBlocked) specs.insert(specs.end(), {"tcp," + a + ",8080", "udp," + a + ",8081"});
  specs.insert(specs.end(), {"dns,internet.test," + kLanResolver,  // an alternate (LAN) resolver
                             "tcp," + kInternet + ",8080", "udp," + kInternet + ",8081", "resolve,internet.test",
                             "tcp," + kAllowed + ",8080", "tcp,fd00:beef::10,8080", "tcp,127.0.0.1,8080",
                             "tcp,::1,8080", "tcp,192.0.2.2,8080"});
  return specs;
}

std::string probe_args() {
  std::string args = "/usr/bin/python3 probe.py";
  for (const auto& s : probe_specs()) args += " " + s;
  return args;
}

// "tcp,10.1.2.3,8080" -> "OK hello 10.1.2.3" / "ERR EINVAL"
std::map<std::string, std::string> parse_probes(const std::string& output) {
  std::map<std::string, std::string> results;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    auto space = line.find(' ');
    if (space != std::string::npos) results[line.substr(0, space)] = line.substr(space + 1);
  }
  return results;
}

bool ok(const std::map<std::string, std::string>& r, const std::string& spec) {
  auto it = r.find(spec);
  return it != r.end() && it->second.rfind("OK", 0) == 0;
}

std::string result_of(const std::map<std::string, std::string>& r, const std::string& spec) {
  auto it = r.find(spec);
  return it == r.end() ? "(no result)" : it->second;
}

// Bounded: pasta's kernel cleanup may finish just after cordon returns.
std::string strays_after_teardown() {
  std::string stray;
  for (int i = 0; i < 40; ++i) {
    stray = world->stray_processes();
    if (stray.empty()) break;
    ::usleep(50 * 1000);
  }
  return stray;
}

bool battery_built() {
  struct stat st {};
  return ::stat(CORDON_BUILD_DIR "/libexec/cordon/cordon-battery", &st) == 0;
}

class JailWorld : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    world = open_suite_world(world_problem);
    if (!world) return;
    world->write_config("nojail", "[network]\negress_jail = false\n");
    world->write_config("jail", "[network]\negress_jail = true\nallow_ip = [\"" + kAllowed + "\"]\n");
  }
  static void TearDownTestSuite() {
    close_suite_world(world);
  }
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "building the network world needs root (CI runs as root)";
    ASSERT_EQ(world_problem, "");
  }
  std::string config(const char* name) const { return world->dir + "/cfg/" + name + ".toml"; }

  void expect_jailed_probes(As as) {
    CommandResult run = world->cordon_run(config("jail"), probe_args(), as);
    ASSERT_EQ(run.status, 0) << run.output;
    auto r = parse_probes(run.output);
    for (const auto& a : kBlocked) {
      // Refused locally by the namespace's own routes: nothing is sent.
      std::string expected = a == "169.254.169.254" ? "ERR EHOSTUNREACH" : "ERR EINVAL";
      EXPECT_EQ(result_of(r, "tcp," + a + ",8080"), expected) << a;
      EXPECT_EQ(result_of(r, "udp," + a + ",8081"), expected) << a;
    }
    EXPECT_EQ(result_of(r, "dns,internet.test," + kLanResolver), "ERR EINVAL");
    EXPECT_EQ(result_of(r, "tcp," + kInternet + ",8080"), "OK hello " + kInternet);
    EXPECT_EQ(result_of(r, "udp," + kInternet + ",8081"), "OK hello " + kInternet);
    EXPECT_EQ(result_of(r, "resolve,internet.test"), "OK " + kInternet);  // through pasta's forwarder
    EXPECT_EQ(result_of(r, "tcp," + kAllowed + ",8080"), "OK hello " + kAllowed);
    EXPECT_FALSE(ok(r, "tcp,fd00:beef::10,8080")) << result_of(r, "tcp,fd00:beef::10,8080");
    // The fake host's loopback and own-address services stay out of reach.
    EXPECT_EQ(result_of(r, "tcp,127.0.0.1,8080"), "ERR ECONNREFUSED");
    EXPECT_FALSE(ok(r, "tcp,::1,8080")) << result_of(r, "tcp,::1,8080");
    EXPECT_EQ(result_of(r, "tcp,192.0.2.2,8080"), "ERR ECONNREFUSED");
  }

  void expect_tampering_fails(As as) {
    world->put_in_workspaces("tamper.sh", R"SH(
try() { if "$@" 2>/tmp/err >/dev/null; then echo "ALLOWED: $*"; else echo "refused: $*: $(cat /tmp/err)"; fi; }
echo BEFORE; ip route show table main
try ip route del 10.0.0.0/8
try ip route add 10.1.2.3/32 via 192.0.2.1 dev eth0 onlink
try ip route replace default via 192.0.2.1 dev eth0 onlink
try ip link add cj0 type veth peer name cj1
try ip addr add 10.1.2.4/32 dev lo
try ip rule add from all lookup 100 pref 10
try sh -c 'echo 0 > /proc/sys/net/ipv6/conf/all/disable_ipv6'
try unshare -rn true
echo AFTER; ip route show table main
)SH");
    CommandResult run = world->cordon_run(config("jail"), "/bin/sh tamper.sh", as);
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_EQ(run.output.find("ALLOWED"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("refused: ip route del 10.0.0.0/8: RTNETLINK answers: Operation not permitted"),
              std::string::npos) << run.output;
    EXPECT_NE(run.output.find("refused: ip link add cj0 type veth peer name cj1: RTNETLINK answers: Operation not permitted"),
              std::string::npos) << run.output;
    auto before = run.output.find("BEFORE\n"), after = run.output.find("AFTER\n");
    ASSERT_NE(before, std::string::npos);
    ASSERT_NE(after, std::string::npos);
    std::string routes_before = run.output.substr(before + 7, run.output.find("refused") - before - 7);
    std::string routes_after = run.output.substr(after + 6);
    EXPECT_EQ(routes_before, routes_after);
    EXPECT_NE(routes_after.find("blackhole 10.0.0.0/8"), std::string::npos) << routes_after;
  }

  // A sabotaged launch: refused with status 125, an error naming `fix`, nothing ran,
  // nothing left behind.
  // A wrapper that starts cordon in the background and, every 10 ms while it runs (at most
  // `looks` times, until `seen` is not empty), runs `on_bwrap` for each bwrap process the
  // launch started ($p its /proc directory).
  std::string watcher(const std::string& name, int looks, const std::string& seen, const std::string& on_bwrap) const {
    const std::string path = world->dir + "/" + name;
    write_file(path,
               "#!/bin/sh\n\"$@\" &\nlauncher=$!\ni=0\n"
               // Only this launch's bwrap: other tests run beside this one (ctest -j).
               "ours() { q=$1; n=0; while [ \"${q:-0}\" -gt 1 ] && [ $n -lt 30 ]; do\n"
               "  [ \"$q\" = \"$launcher\" ] && return 0\n"
               "  q=$(awk '/^PPid:/ {print $2}' /proc/$q/status 2>/dev/null); n=$((n + 1)); done; return 1; }\n"
               "while [ $i -lt " + std::to_string(looks) + " ] && [ ! -s " + seen + " ] && kill -0 $launcher; do\n"
               "  for exe in $(ls -l /proc/[0-9]*/exe 2>/dev/null | awk '$NF == \"/usr/bin/bwrap\" {print $(NF-2)}'); do\n"
               // Not the launcher's `bwrap --version` for the manifest: a sandbox's bwrap.
               "    p=${exe%/exe}; tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q -- ' --version' && continue\n"
               "    ours ${p#/proc/} && { " + on_bwrap + "; }\n"
               "  done\n  i=$((i + 1)); sleep 0.01\ndone\nwait $launcher\n",
               0755);
    return path;
  }

  void expect_refused(const std::string& what, const NetWorld::RunOptions& options,
                      const std::vector<std::string>& message_parts) {
    std::string marker = world->workspace(options.as) + "/marker";
    ::unlink(marker.c_str());
    CommandResult run = world->cordon_run(config("jail"), "/usr/bin/touch " + marker, options);
    EXPECT_EQ(run.status, 125) << what << ": " << run.output;
    struct stat st {};
    EXPECT_NE(::stat(marker.c_str(), &st), 0) << what << ": the command ran";
    for (const auto& part : message_parts) EXPECT_NE(run.output.find(part), std::string::npos) << what << ": " << run.output;
    EXPECT_EQ(strays_after_teardown(), "") << what;
    EXPECT_EQ(world->leftover_temp_files(), "") << what << ": temp dir left";
  }
};

TEST_F(JailWorld, ControlWithoutTheJailEveryProbeGetsThrough) {
  CommandResult run = world->cordon_run(config("nojail"), probe_args());
  ASSERT_EQ(run.status, 0) << run.output;
  auto r = parse_probes(run.output);
  for (const auto& spec : probe_specs()) EXPECT_TRUE(ok(r, spec)) << spec << ": " << result_of(r, spec);
  EXPECT_EQ(result_of(r, "tcp,169.254.169.254,8080"), "OK hello 169.254.169.254");
  EXPECT_EQ(result_of(r, "tcp,127.0.0.1,8080"), "OK hello 127.0.0.1");
}

TEST_F(JailWorld, JailBlocksLanMetadataAndHostButNotInternetDnsOrAllowList) { expect_jailed_probes(As::Root); }

#ifdef CORDON_TEST_HOOKS
// The control for the host's own addresses: the jail as it was before it blackholed every
// address of the host (only connected subnets) reaches the host's /32 through pasta, which
// connects to it from the host. The blackhole is what stops it, not the world.
TEST_F(JailWorld, ControlWithoutHostAddressRoutesTheHostsOwnAddressAnswers) {
  NetWorld::RunOptions o;
  o.run_flags = "--test-weaken jail-host-addresses-open";
  CommandResult run = world->cordon_run(config("jail"), "/usr/bin/python3 probe.py tcp," + kHostOwn + ",8080", o);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(result_of(parse_probes(run.output), "tcp," + kHostOwn + ",8080"), "OK hello " + kHostOwn) << run.output;
}
#endif

TEST_F(JailWorld, JailedLaunchAsAnUnprivilegedUser) {
  if (!world->user_ready) GTEST_SKIP() << "could not create user " << NetWorld::kUser;
  expect_jailed_probes(As::User);
}

TEST_F(JailWorld, SandboxSeesTheForwarderResolvConfAndTheSession) {
  CommandResult run = world->cordon_run(config("jail"), "/bin/cat /etc/resolv.conf /run/cordon/session");
  ASSERT_EQ(run.status, 0) << run.output;
  // The fake host is in 192.0.2.0/24, so the forwarder is the second candidate.
  EXPECT_NE(run.output.find("\nnameserver 198.51.100.53\nsearch corp.test\noptions ndots:2 timeout:1 attempts:1\n"),
            std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("10.53.0.53"), std::string::npos) << run.output;
  // The session file is the one JSON line after resolv.conf.
  const auto at = run.output.find("{\"format\":\"cordon-session\"");
  ASSERT_NE(at, std::string::npos) << run.output;
  const Json network = Json::parse(run.output.substr(at, run.output.find('\n', at) - at))["network"];
  EXPECT_EQ(network["mode"], "egress-jail");
  auto has = [&](const char* key, const char* value) {
    return std::count(network[key].begin(), network[key].end(), Json(value)) == 1;
  };
  EXPECT_TRUE(has("blackholes", "10.0.0.0/8")) << network;
  EXPECT_TRUE(has("blackholes", "192.0.2.0/24")) << network;
  EXPECT_TRUE(has("unreachable", "169.254.0.0/16")) << network;
  EXPECT_TRUE(has("allow", "198.51.100.53/32")) << network;
  EXPECT_TRUE(has("allow", "10.9.9.9/32")) << network;
  EXPECT_EQ(network["gateway"], "192.0.2.1");
  EXPECT_EQ(network["dns_forward"], "198.51.100.53");
}

TEST_F(JailWorld, RouteTamperingFromInsideFailsAndLeavesRoutesIntact) { expect_tampering_fails(As::Root); }

TEST_F(JailWorld, RouteTamperingAsAnUnprivilegedUserFails) {
  if (!world->user_ready) GTEST_SKIP() << "could not create user " << NetWorld::kUser;
  expect_tampering_fails(As::User);
}

TEST_F(JailWorld, TeardownLeavesNoPastaNamespaceOrTempDir) {
  CommandResult run = world->cordon_run(config("jail"), "/bin/true");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(strays_after_teardown(), "");
  EXPECT_EQ(world->leftover_temp_files(), "");  // the launch's own /tmp: no cordon-jail-* left
}

TEST_F(JailWorld, CommandExitStatusPassesThroughTheJail) {
  CommandResult run = world->cordon_run(config("jail"), "/bin/sh -c 'exit 7'");
  EXPECT_EQ(run.status, 7) << run.output;
}

TEST_F(JailWorld, RefusesWithoutPasta) {
  expect_refused("pasta masked", {As::Root, "mount --bind " + world->dir + "/not-executable /usr/bin/pasta", "", "", "", false},
                 {"pasta is not installed", "apt-get install passt", "mode = \"host\""});
}

TEST_F(JailWorld, RefusesWithoutTunDevice) {
  expect_refused("/dev/net/tun missing", {As::Root, "mount -t tmpfs none /dev/net", "", "", "", false},
                 {"cannot open /dev/net/tun", "modprobe tun", "mode = \"host\""});
}

// Another device at /dev/net/tun opens fine; the launch refuses it before pasta would fail on
// it (`cordon doctor` predicts the same: launcher_test.cpp).
TEST_F(JailWorld, RefusesWhenDevNetTunIsNotTheTunDevice) {
  expect_refused("/dev/null on /dev/net/tun", {As::Root, "mount --bind /dev/null /dev/net/tun", "", "", "", false},
                 {"/dev/net/tun is not the tun device (character device 10:200)", "mknod -m 0666 /dev/net/tun c 10 200",
                  "mode = \"host\""});
}

TEST_F(JailWorld, RefusesWhenTheUserCannotOpenTun) {
  if (!world->user_ready) GTEST_SKIP() << "could not create user " << NetWorld::kUser;
  expect_refused("/dev/net/tun 0600", {As::User, "mount --bind " + world->dir + "/tun-0600 /dev/net/tun", "", "", "", false},
                 {"cannot open /dev/net/tun: Permission denied", "chmod 0666 /dev/net/tun"});
}

TEST_F(JailWorld, RefusesWithoutUserNamespaces) {
  // Root of a user namespace whose own limit is 0: the machine's setting stays untouched.
  expect_refused("user namespaces disabled",
                 {As::Root, "", "",
                  "unshare -U -r /bin/sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"' sh", "", false},
                 {"user namespaces are disabled", "max_user_namespaces", "mode = \"host\""});
}

TEST_F(JailWorld, RefusesWhenPastaFails) {
  std::string fake = world->dir + "/fake-pasta-fails";
  CommandResult made = run_shell("printf '#!/bin/sh\\necho \"fake pasta: cannot attach\" >&2\\nexit 1\\n' > " + fake +
                                 " && chmod 755 " + fake);
  ASSERT_EQ(made.status, 0);
  expect_refused("pasta exits 1", {As::Root, "mount --bind " + fake + " /usr/bin/pasta", "", "", "", false},
                 {"pasta could not attach", "fake pasta: cannot attach"});
}

TEST_F(JailWorld, RefusesWhenPastaClaimsSuccessWithoutAttaching) {
  std::string fake = world->dir + "/fake-pasta-lies";
  ASSERT_EQ(run_shell("printf '#!/bin/sh\\nexit 0\\n' > " + fake + " && chmod 755 " + fake).status, 0);
  expect_refused("pasta exits 0 without attaching", {As::Root, "mount --bind " + fake + " /usr/bin/pasta", "", "", "", false},
                 {"egress jail: pasta reported success"});
}

TEST_F(JailWorld, RefusesWithoutADefaultRoute) {
  // The router namespace has no default route: nothing to forward through.
  expect_refused("no default route", {As::Root, "", "", "", world->router_ns, false},
                 {"no IPv4 default route", "mode = \"host\""});
}

#ifdef CORDON_TEST_HOOKS
TEST_F(JailWorld, RefusesWhenARouteAddFails) {
  expect_refused("route 3 refused by the kernel", {As::Root, "", "CORDON_TEST_FAIL_ROUTE=3", "", "", false},
                 {"egress jail: adding route 3 (blackhole 192.168.0.0/16", "Invalid argument", "(kernel: "});
}

// The command gate: bwrap sets up the sandbox while pasta attaches, and its child then waits
// (a read of the gate's descriptor, 8) until the routes are verified. Here the routes are
// programmed late and one is refused: the wrapper sees bwrap waiting at the gate meanwhile,
// and the failure still ends the launch with nothing run and nothing left.
TEST_F(JailWorld, AJailThatFailsWhileBwrapWaitsAtTheGateRunsNothing) {
  const std::string seen = world->dir + "/gate-seen";
  ::unlink(seen.c_str());
  // Bounded: at most 300 looks, 10 ms apart. /proc/PID/syscall "0 0x8 ..." is read(8, ...).
  const std::string script = watcher("watch-gate.sh", 300, seen,
                                     "case \"$(cat $p/syscall 2>/dev/null)\" in \"0 0x8 \"*) echo waiting > " + seen +
                                         ";; esac");
  NetWorld::RunOptions o;
  o.env = "CORDON_TEST_DELAY_ROUTES_MS=1500 CORDON_TEST_FAIL_ROUTE=3";
  o.wrapper = "/bin/sh " + script;
  expect_refused("route 3 refused while bwrap waits", o,
                 {"egress jail: adding route 3 (blackhole 192.168.0.0/16", "Invalid argument"});
  EXPECT_EQ(read_file(seen), "waiting\n") << "bwrap was never seen waiting at the command gate";
}

// The launcher killed outright while bwrap waits at the gate: the gate's write end closes with
// it, but the session's init holds it too and dies only after killing the whole session, so
// bwrap's child never reads the end of file as a go. Nothing runs and nothing is left.
TEST_F(JailWorld, ALauncherKilledWhileBwrapWaitsAtTheGateRunsNothing) {
  const std::string seen = world->dir + "/gate-killed";
  ::unlink(seen.c_str());
  const std::string script = watcher("kill-at-gate.sh", 300, seen,
                                     "case \"$(cat $p/syscall 2>/dev/null)\" in \"0 0x8 \"*) kill -9 $launcher; "
                                     "echo killed > " + seen + ";; esac");
  const std::string marker = world->workspace(As::Root) + "/ran-past-the-gate";
  ::unlink(marker.c_str());
  NetWorld::RunOptions o;
  o.env = "CORDON_TEST_DELAY_ROUTES_MS=1500";
  o.wrapper = "/bin/sh " + script;
  CommandResult run = world->cordon_run(config("jail"), "/bin/sh -c 'touch " + marker + "; sleep 30'", o);
  EXPECT_EQ(read_file(seen), "killed\n") << run.output;
  EXPECT_EQ(run.status, 137) << run.output;
  // Bounded: the init's kill is immediate; 2 s for the kernel to finish the namespace.
  std::string left;
  for (int i = 0; i < 40; ++i) {
    left = run_shell("pgrep -af '[/]ran-past-the-gate' | grep -F " + world->workspace(As::Root) + " || true").output;
    if (left.empty()) break;
    ::usleep(50 * 1000);
  }
  EXPECT_EQ(left, "") << "a process of the killed session is still running";
  EXPECT_FALSE(path_exists(marker)) << "the command ran after its launcher was killed at the gate";
  EXPECT_EQ(strays_after_teardown(), "");
}

// Control for the test above: without the session's init (which keeps the gate shut if the
// launcher dies) the jail runs in order, and bwrap is never started before the routes.
TEST_F(JailWorld, ControlWithoutTheSessionInitBwrapStartsOnlyAfterTheRoutes) {
  const std::string seen = world->dir + "/bwrap-seen";
  ::unlink(seen.c_str());
  const std::string script = watcher("watch-bwrap.sh", 300, seen, "echo started > " + seen);
  NetWorld::RunOptions o;
  o.env = "CORDON_TEST_DELAY_ROUTES_MS=1000 CORDON_TEST_FAIL_ROUTE=3";
  o.wrapper = "/bin/sh " + script;
  o.run_flags = "--test-weaken no-session-init";
  expect_refused("route 3 refused, no session init", o, {"egress jail: adding route 3"});
  EXPECT_EQ(read_file(seen), "") << "bwrap ran before the routes were programmed";
}

TEST_F(JailWorld, SkipHookBuildsAPartialJailForTheBattery) {
  // With route 1 (10/8) left out on purpose, the jail still starts, the LAN host answers and
  // the session file still claims 10/8: the battery must notice that mismatch.
  NetWorld::RunOptions o{As::Root, "", "CORDON_TEST_SKIP_ROUTE=1", "", "", false};
  CommandResult run = world->cordon_run(config("jail"), "/usr/bin/python3 probe.py tcp,10.1.2.3,8080", o);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("OK hello 10.1.2.3"), std::string::npos) << run.output;
}

TEST_F(JailWorld, BatteryFailsChecks19And20OnAPartialJail) {
  ASSERT_TRUE(battery_built()) << "cordon-battery was not built";
  CommandResult run = world->cordon_run(config("jail"), "", {As::Root, "", "CORDON_TEST_SKIP_ROUTE=1", "", "", true});
  EXPECT_NE(run.output.find("[FAIL] 19 "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("[FAIL] 20 "), std::string::npos) << run.output;
}

// bwrap failing its own setup in a jailed launch (here a bind of a missing path) closes the
// pipes the jail's stage writes to: the launcher reports bwrap's failure (its own message is
// above), exits 125 and writes a receipt. Before, about half such launches died of SIGPIPE
// (exit 141, no message, no receipt), and with SIGPIPE ignored the message blamed the jail.
TEST_F(JailWorld, ABwrapSetupFailureIsReportedAsSuchWithAReceipt) {
  NetWorld::RunOptions o;
  o.run_flags = "--test-weaken rw-bind:/nonexistent-cordon-test";
  const std::string sessions = world->state_dir + "/0/sessions";
  for (int i = 0; i < 6; ++i) {
    CommandResult run = world->cordon_run(config("jail"), "/bin/true", o);
    EXPECT_EQ(run.status, 125) << run.output;
    EXPECT_NE(run.output.find("bwrap: Can't find source path /nonexistent-cordon-test"), std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("sandbox setup failed (bwrap exited with status 1"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("egress jail:"), std::string::npos) << run.output;
    std::string newest;
    for (const auto& e : std::filesystem::directory_iterator(sessions))
      if (e.path().extension() == ".json" && e.path().string() > newest) newest = e.path().string();
    const std::string record = read_file(newest);
    EXPECT_NE(record.find("\"launch_error\":\"sandbox setup failed"), std::string::npos) << newest << ": " << record;
    EXPECT_EQ(strays_after_teardown(), "");
  }
}

// The battery measures the host-address blackholes too: without them (the session file still
// states them), check 19 finds the routes short of the intent.
TEST_F(JailWorld, BatteryFailsCheck19WithoutTheHostAddressRoutes) {
  ASSERT_TRUE(battery_built()) << "cordon-battery was not built";
  NetWorld::RunOptions o{As::Root, "", "", "", "", true};
  o.run_flags = "--test-weaken jail-host-addresses-open";
  CommandResult run = world->cordon_run(config("jail"), "", o);
  EXPECT_NE(run.output.find("[FAIL] 19 "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("198.19.7.7/32"), std::string::npos) << run.output;
}
#endif

// The whole promise, measured: the full cordon sandbox, launched exactly as in production
// (fixed config path, the jail on), passes every battery check, as root and as a user.
TEST_F(JailWorld, FullSandboxPassesEveryBatteryCheck) {
  ASSERT_TRUE(battery_built()) << "cordon-battery was not built";
  for (As as : {As::Root, As::User}) {
    if (as == As::User) {
      ASSERT_TRUE(world->user_ready) << "the unprivileged test user is missing";
    }
    NetWorld::RunOptions o{as, "", "", "", "", true, true};
    o.run_flags = "-v";  // every row: 18's PASS is asserted
    CommandResult run = world->cordon_run(config("jail"), "", o);
    EXPECT_EQ(run.status, 0) << run.output;
    expect_every_check_holds(run.output);
    EXPECT_NE(run.output.find("[PASS] 18 "), std::string::npos) << run.output;  // read from the fixed path
  }
}

// Budgets and the jail together, launched as production does (root; cordon started in a
// cgroup of its own, as `systemd-run --scope -p Delegate=yes` would): check 27 finds the
// session cgroup with both limits, and every other check still passes.
TEST_F(JailWorld, FullSandboxWithBudgetsPassesEveryBatteryCheck) {
  ASSERT_TRUE(battery_built()) << "cordon-battery was not built";
  auto site = root_budget_site("pids_max", 256);
  if (!site) GTEST_SKIP() << "no cgroup hierarchy here carries the pids controller";
  if (!root_budget_site("memory_max_bytes", 1 << 30)) GTEST_SKIP() << "no cgroup hierarchy here carries memory";
  LaunchScope scope(*site, root_identity());
  std::string cfg = world->write_config("jail-budgets", "[network]\negress_jail = true\n[limits]\n"
                                                        "pids_max = 256\nmemory_max_bytes = 1073741824\n");
  NetWorld::RunOptions o;
  o.prelude = remount_cgroups_script() + " && echo $$ > " + scope.dir() + "/cgroup.procs";
  o.verify = true;
  o.fixed_config = true;
  o.run_flags = "-v";  // every row: 27's note is asserted
  CommandResult run = world->cordon_run(cfg, "", o);
  EXPECT_EQ(run.status, 0) << run.output;
  expect_every_check_holds(run.output);
  EXPECT_NE(run.output.find("memory_max_bytes=1073741824 ("), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("pids_max=256 (" + scope.dir() + "/cordon-"), std::string::npos) << run.output;
}

// verify --deep: every probe BLOCKED against bait the launcher sets up on the fake host
// (loopback listener, abstract socket, canaries, its own pid), as root and as a user.
TEST_F(JailWorld, DeepVerifyOfTheFullSandboxIsOk) {
  ASSERT_TRUE(battery_built()) << "cordon-battery was not built";
  // The launcher plants a canary next to the workspace (another project): let the test user
  // write there too, as a user can in their own projects directory.
  ::chmod(world->dir.c_str(), 01777);
  for (As as : {As::Root, As::User}) {
    if (as == As::User) {
      ASSERT_TRUE(world->user_ready) << "the unprivileged test user is missing";
    }
    CommandResult run = world->cordon_run(config("jail"), "", {as, "", "", "", "", true, true, true});
    EXPECT_EQ(run.status, 0) << run.output;
    expect_every_check_holds(run.output);
    EXPECT_NE(run.output.find("Adversarial summary: 62 BLOCKED / 0 ESCAPED / 0 INCONCLUSIVE"), std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("RESULT: SANDBOX OK (34 checks + 62 probes)"), std::string::npos) << run.output;
    // Without -v a sound sandbox's report is its summaries: no row passed is listed.
    EXPECT_EQ(run.output.find("[PASS]"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("[BLOCKED]"), std::string::npos) << run.output;
  }
}

// verify --deep --json of the full sandbox: stdout is one document, the battery's and the
// probes' reports in it, and the verdict that the exit status gives.
TEST_F(JailWorld, DeepVerifyJsonIsOneDocument) {
  ASSERT_TRUE(battery_built()) << "cordon-battery was not built";
  const std::string err = world->dir + "/deep-json.err";
  NetWorld::RunOptions o{As::Root, "", "", "", "", true, true, true};
  o.run_flags = "--json 2>" + err;  // stdout alone is the document
  CommandResult run = world->cordon_run(config("jail"), "", o);
  EXPECT_EQ(run.status, 0) << run.output << read_file(err);
  Json doc;
  try {
    doc = Json::parse(run.output);  // the whole of stdout: trailing text (a second document) throws
  } catch (const std::exception& e) {
    FAIL() << "stdout is not one JSON document (" << e.what() << "):\n" << run.output << read_file(err);
  }
  EXPECT_EQ(doc["format"], "cordon-verify");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["deep"], true);
  EXPECT_EQ(doc["battery"]["format"], "cordon-battery");
  EXPECT_EQ(doc["battery"]["fail"], 0) << doc["battery"].dump();
  EXPECT_EQ(doc["battery"]["checks"].size(), 34u);
  EXPECT_EQ(doc["probes"]["format"], "cordon-probe");
  EXPECT_EQ(doc["probes"]["result"], "SANDBOX OK") << doc["probes"]["result_line"];
  EXPECT_EQ(doc["probes"]["summary"]["checks_passed"], 34);
  EXPECT_EQ(doc["verdict"], "PASS");
  EXPECT_EQ(doc["exit_code"], 0);
  EXPECT_TRUE(doc["problems"].empty()) << doc["problems"].dump();
}

// Without the jail the battery FAILs (18 via --config, 24), so the probes never run.
TEST_F(JailWorld, DeepVerifySkipsProbesWhenTheBatteryFails) {
  ASSERT_TRUE(battery_built()) << "cordon-battery was not built";
  CommandResult run = world->cordon_run(config("nojail"), "", {As::Root, "", "", "", "", true, false, true});
  EXPECT_EQ(run.status, 1) << run.output;  // a FAIL, whatever the count (here 2)
  EXPECT_NE(run.output.find("probes not run"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("cordon-probe:"), std::string::npos) << run.output;
}

TEST_F(JailWorld, BatteryPassesChecks19And20WithTheJail) {
  ASSERT_TRUE(battery_built()) << "cordon-battery was not built";
  NetWorld::RunOptions every_row{As::Root, "", "", "", "", true};
  every_row.run_flags = "-v";  // PASS rows are asserted
  CommandResult run = world->cordon_run(config("jail"), "", every_row);
  EXPECT_NE(run.output.find("[PASS] 19 "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("[PASS] 20 "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("[PASS] 24 "), std::string::npos) << run.output;  // own network namespace
  CommandResult off = world->cordon_run(config("nojail"), "", every_row);
  EXPECT_NE(off.output.find("[PASS] 19 egress jail routes — jail disabled"), std::string::npos) << off.output;
  EXPECT_NE(off.output.find("[PASS] 20 egress jail behaviour — jail disabled"), std::string::npos) << off.output;
}

}  // namespace
}  // namespace cordon::testing
