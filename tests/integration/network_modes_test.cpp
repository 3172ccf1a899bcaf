// network.mode = "offline" and "allowlist" in the fake network world (networld.sh): the
// launcher runs in the world's "fake host", the world's router holds the "internet"
// (198.18.0.10, internet.test), the LAN (10.1.2.3, lan.test) and the resolver. Nothing is
// sent outside the world. As root and as the world's unprivileged user.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/json_codec.h"
#include "common/landlock_abi.h"
#include "jail_world.h"
#include "support.h"

namespace cordon::testing {
namespace {

namespace fs = std::filesystem;

NetWorld* world = nullptr;
std::string world_problem;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// What the sandbox tries in every mode; one "NAME: RESULT" line each.
const char* kAttempts = R"SH(
t() { name=$1; shift; if out=$("$@" 2>&1); then echo "$name: OK $out"; else echo "$name: FAIL $out"; fi; }
t internet curl -sS -m 5 http://internet.test:8000/hello.txt
t tunnel curl -sS -m 5 -p http://internet.test:8000/hello.txt
t raw-ip curl -s -m 5 -f http://198.18.0.10:8000/hello.txt
t other-port curl -s -m 5 -f http://internet.test:8081/
t lan-name curl -s -m 5 -f http://lan.test:8080/
t not-listed curl -s -m 5 http://unlisted.test:8080/
t direct env -u http_proxy -u HTTP_PROXY -u ALL_PROXY -u all_proxy curl -s -m 5 http://198.18.0.10:8000/hello.txt
t dns getent hosts internet.test
t loopback python3 -c "
import socket
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)
c = socket.create_connection(s.getsockname()); a, _ = s.accept(); a.sendall(b'echo'); print(c.recv(4).decode())"
)SH";

class NetworkModes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    world = open_suite_world(world_problem);
    if (!world) return;
    world->write_config("offline", "[network]\nmode = \"offline\"\n");
    // lan.test is listed on purpose: it resolves into the LAN, which the proxy refuses.
    world->write_config("allowlist",
                        "[network]\nmode = \"allowlist\"\nallow = [\"lan.test:8080\", \"internet.test:8000\", "
                        "\"internet.test:8443\", \"localhost\"]\n");
    world->write_config("jail", "[network]\nmode = \"jail\"\n");
    world->put_in_workspaces("attempts.sh", kAttempts);
    world_problem = start_web_servers();
  }
  static void TearDownTestSuite() {
    if (world) run_shell("kill $(cat " + world->dir + "/web.pid) 2>/dev/null");
    close_suite_world(world);
  }

  // HTTP and HTTPS on the "internet" (198.18.0.10:8000 and :8443, in the router namespace),
  // serving hello.txt, the package files and, under /git/, a bare git repository over git's
  // smart HTTP protocol (clone and push; it is outside the static root, so git's older "dumb"
  // protocol cannot serve it); the HTTPS certificate is for internet.test, from a CA made
  // here, whose certificate both workspaces hold as ca.pem.
  static std::string start_web_servers() {
    const std::string d = world->dir + "/web";
    const std::string script =
        "set -e\nmkdir -p " + d + "/root\ncd " + d +
        "\n"
        "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=cordon-test-ca -keyout ca.key -out ca.pem "
        "2>/dev/null\n"
        "openssl req -newkey rsa:2048 -nodes -subj /CN=internet.test -keyout site.key -out site.csr 2>/dev/null\n"
        "printf 'subjectAltName=DNS:internet.test\\n' > ext.cnf\n"
        "openssl x509 -req -in site.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile ext.cnf "
        "-out site.pem 2>/dev/null\n"
        "echo 'hello internet' > root/hello.txt\n"
        "git init -q src && git -C src -c user.name=t -c user.email=t@t commit -q --allow-empty -m 'world commit'\n"
        "mkdir -p git && git clone -q --bare src git/smart.git\n"
        // A package index for pip (a wheel made by hand: no build backend, no network) and an
        // npm tarball, both served from the same origin.
        "mkdir -p root/simple/demo-pkg npmpkg && /usr/bin/python3 " +
        CORDON_SOURCE_DIR +
        "/tests/integration/world_packages.py root/simple/demo-pkg npmpkg\n"
        "(cd npmpkg && npm pack --silent >/dev/null 2>&1 && mv demo-1.0.0.tgz ../root/) || true\n"
        "ip netns exec " +
        world->router_ns + " timeout 900 /usr/bin/python3 " + CORDON_SOURCE_DIR +
        "/tests/integration/world_servers.py 198.18.0.10 " + d + "/root " + d + "/git site.pem site.key " + d +
        "/ready >web.log 2>&1 &\necho $! > " + world->dir +
        "/web.pid\n"
        "i=0; while [ ! -s ready ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done\n"
        "test -s ready || { cat web.log; exit 1; }\n";
    CommandResult made = run_shell(script);
    if (made.status != 0) return "web servers: " + made.output;
    world->put_in_workspaces("ca.pem", read_file(d + "/ca.pem"));
    return "";
  }
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "building the network world needs root (CI runs as root)";
    ASSERT_EQ(world_problem, "");
    ASSERT_TRUE(world->user_ready) << "the unprivileged test user is missing";
  }
  std::string config(const char* name) const { return world->dir + "/cfg/" + name + ".toml"; }
  std::string probe() const { return world->dir + "/inst/libexec/cordon/cordon-probe"; }

  static std::string sessions_dir(As as) {
    uid_t uid = 0;
    if (as == As::User) {
      passwd* pw = ::getpwnam(NetWorld::kUser);
      uid = pw ? pw->pw_uid : 0;
    }
    return world->state_dir + "/" + std::to_string(uid) + "/sessions";
  }
  // Before a launch whose record the test reads: the earlier records of `as` go.
  static void clear_records(As as) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(sessions_dir(as), ec))
      if (e.path().extension() == ".json") fs::remove(e.path(), ec);
  }
  // The newest session record of `as` in the world's state directory ("" = none).
  std::string latest_record(As as) const {
    std::string newest;
    for (const auto& e : fs::directory_iterator(sessions_dir(as)))
      if (e.path().extension() == ".json" && e.path().string() > newest) newest = e.path().string();
    return newest;
  }
  // That record's receipt (line 2).
  Json latest_receipt(As as) const {
    const std::string newest = latest_record(as);
    std::string text = newest.empty() ? "" : read_file(newest);
    size_t nl = text.find('\n');
    if (nl == std::string::npos) return Json();
    return Json::parse(text.substr(nl + 1), nullptr, false)["receipt"];
  }

  NetWorld::RunOptions as(As who, const std::string& flags = "") const {
    NetWorld::RunOptions o;
    o.as = who;
    o.run_flags = flags;
    return o;
  }
};

// Offline: loopback works, nothing else does, DNS included; the launch needs no pasta.
TEST_F(NetworkModes, OfflineReachesNothingButLoopback) {
  for (As who : {As::Root, As::User}) {
    CommandResult run = world->cordon_run(config("offline"), "/bin/sh attempts.sh", as(who));
    ASSERT_EQ(run.status, 0) << run.output;
    for (const char* name : {"internet", "tunnel", "raw-ip", "lan-name", "direct", "dns"})
      EXPECT_TRUE(has(run.output, std::string(name) + ": FAIL")) << name << "\n" << run.output;
    EXPECT_TRUE(has(run.output, "loopback: OK echo")) << run.output;
    EXPECT_FALSE(has(run.output, "hello 198.18.0.10")) << run.output;
    EXPECT_EQ(world->stray_processes(), "");
  }
}

// The README's own layout: a project under the home (~/src/app). Probe 21 judges the canary
// `verify --deep` plants beside the workspace; before, it looked only for canaries outside
// the home, found the siblings hidden and nothing to read, and the audit ended INCOMPLETE
// (exit 3) for every home-kept project.
TEST_F(NetworkModes, DeepVerifyOfAWorkspaceUnderTheHomeFinishes) {
  for (As who : {As::Root, As::User}) {
    NetWorld::RunOptions o = as(who);
    o.verify = o.deep = true;
    o.fixed_config = true;
    o.run_flags = "-v";  // every row: probe 21's is asserted
    const std::string home = who == As::Root ? world->dir + "/root-home" : std::string("/home/") + NetWorld::kUser;
    o.workspace = home + "/src/app-" + world->id;
    run_shell("mkdir -p " + o.workspace +
              (who == As::User ? std::string(" && chown -R ") + NetWorld::kUser + " " + home + "/src" : ""));
    if (who == As::Root) o.env = "HOME=" + home;
    CommandResult run = world->cordon_run(config("offline"), "", o);
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_TRUE(has(run.output, "[BLOCKED] 21 fs-other-project")) << run.output;
    EXPECT_TRUE(has(run.output, "RESULT: SANDBOX OK")) << run.output;
    run_shell("rm -rf " + o.workspace);
  }
}

// Check 31 and probes 12-17 hold offline; in the launcher's own namespace (the weakening) 31
// FAILs and the probes that look for a way out find one.
TEST_F(NetworkModes, OfflineVerifyDeepPassesAndItsWeakeningIsSeen) {
  for (As who : {As::Root, As::User}) {
    NetWorld::RunOptions o = as(who);
    o.verify = o.deep = true;
    o.fixed_config = true;
    o.run_flags = "-v";  // every row: PASS and BLOCKED rows are asserted
    CommandResult run = world->cordon_run(config("offline"), "", o);
    EXPECT_TRUE(has(run.output, "[PASS] 31 egress limited to the policy — mode offline: loopback only")) << run.output;
    EXPECT_TRUE(has(run.output, "[BLOCKED] 13 egress-policy-raw-ip")) << run.output;
    EXPECT_TRUE(has(run.output, "[BLOCKED] 15 egress-policy-dns-label")) << run.output;
  }
  NetWorld::RunOptions weak = as(As::Root, "--test-weaken offline-host-net");
  weak.verify = true;
  CommandResult battery = world->cordon_run(config("offline"), "", weak);
  EXPECT_TRUE(has(battery.output, "[FAIL] 31 egress limited to the policy — mode offline: interfaces besides loopback"))
      << battery.output;
  CommandResult probes = world->cordon_run(config("offline"), probe() + " --only 13,14,15,17",
                                           as(As::Root, "--test-weaken offline-host-net"));
  for (const char* id : {"13", "14", "15", "17"})
    EXPECT_TRUE(has(probes.output, std::string("[ESCAPED] ") + id + " ")) << id << "\n" << probes.output;
}

// Allowlist: listed destinations through the proxy, by absolute-form GET and by CONNECT; the
// rest refused with the key to add; names resolving into the LAN refused; no direct way out,
// no DNS; every decision in the receipt and counted on stderr.
TEST_F(NetworkModes, AllowlistAdmitsListedDestinationsAndRecordsEachDecision) {
  for (As who : {As::Root, As::User}) {
    clear_records(who);
    CommandResult run = world->cordon_run(config("allowlist"), "/bin/sh attempts.sh", as(who));
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_TRUE(has(run.output, "internet: OK hello internet")) << run.output;
    EXPECT_TRUE(has(run.output, "tunnel: OK hello internet")) << run.output;
    for (const char* name : {"raw-ip", "other-port", "lan-name", "direct", "dns"})
      EXPECT_TRUE(has(run.output, std::string(name) + ": FAIL")) << name << "\n" << run.output;
    EXPECT_TRUE(has(run.output, "not-listed: OK cordon egress proxy: unlisted.test:8080 denied: not in the allow-list"))
        << run.output;
    EXPECT_TRUE(has(run.output, "add \"unlisted.test:8080\" to [network] allow")) << run.output;
    EXPECT_TRUE(has(run.output, "loopback: OK echo")) << run.output;
    EXPECT_TRUE(has(run.output, "cordon: network allowlist: 2 connection(s) allowed, 4 denied")) << run.output;
    EXPECT_TRUE(has(run.output, "; to allow it, add \"")) << run.output;  // the exit line's way forward
    Json receipt = latest_receipt(who);
    ASSERT_TRUE(receipt.is_object()) << run.output;
    const Json egress = receipt["egress"];
    EXPECT_EQ(egress["allowed"], 2) << egress.dump();
    EXPECT_EQ(egress["denied"], 4) << egress.dump();
    bool lan_refused = false, tunnel_bytes = false;
    for (const auto& d : egress["decisions"]) {
      const std::string reason = d.value("reason", "");
      lan_refused |= d["destination"] == "lan.test:8080" && !d["allowed"].get<bool>() && has(reason, "10.1.2.3");
      tunnel_bytes |= d["method"] == "CONNECT" && d["allowed"].get<bool>() && d["bytes_down"].get<long long>() > 0;
    }
    EXPECT_TRUE(lan_refused) << egress.dump();
    EXPECT_TRUE(tunnel_bytes) << egress.dump();
    EXPECT_EQ(world->stray_processes(), "");
    // `cordon status` afterwards shows the same counts, naming the session.
    NetWorld::RunOptions status = as(who);
    status.status = true;
    CommandResult shown = world->cordon_run(config("allowlist"), "", status);
    EXPECT_TRUE(has(shown.output, "  last egress  2 connection(s) allowed, 4 denied (")) << shown.output;
    const std::string session = fs::path(latest_record(who)).stem().string();
    EXPECT_TRUE(has(shown.output, "; session " + session + ", ended ")) << shown.output;
  }
}

// A name that resolves onto an address of the host itself (a public /32 on its lo, outside
// every connected subnet) is refused by the proxy even when the allow-list names it; the
// control (the proxy refusing no address) reaches the host's service.
TEST_F(NetworkModes, AllowlistRefusesTheHostsOwnAddresses) {
  world->write_config("allowlist-hostself", "[network]\nmode = \"allowlist\"\nallow = [\"hostself.test:8080\"]\n");
  const std::string attempt = "/usr/bin/curl -sS -m 5 -p --http0.9 http://hostself.test:8080/";
  for (As who : {As::Root, As::User}) {
    clear_records(who);
    CommandResult run = world->cordon_run(config("allowlist-hostself"), attempt, as(who));
    EXPECT_NE(run.status, 0) << run.output;
    EXPECT_FALSE(has(run.output, "hello 198.19.7.7")) << run.output;
    Json receipt = latest_receipt(who);
    ASSERT_TRUE(receipt.is_object()) << run.output;
    bool refused = false;
    for (const auto& d : receipt["egress"]["decisions"])
      refused |= d["destination"] == "hostself.test:8080" && !d["allowed"].get<bool>() &&
                 has(d.value("reason", ""), "198.19.7.7");
    EXPECT_TRUE(refused) << receipt["egress"].dump();
  }
  CommandResult control = world->cordon_run(config("allowlist-hostself"), attempt,
                                            as(As::Root, "--test-weaken proxy-allow-all"));
  EXPECT_TRUE(has(control.output, "hello 198.19.7.7")) << control.output;
}

TEST_F(NetworkModes, AllowlistVerifyDeepPassesAndEachWeakeningIsSeen) {
  for (As who : {As::Root, As::User}) {
    NetWorld::RunOptions o = as(who);
    o.verify = o.deep = true;
    o.fixed_config = true;
    o.run_flags = "-v";  // every row: PASS and BLOCKED rows are asserted
    CommandResult run = world->cordon_run(config("allowlist"), "", o);
    EXPECT_TRUE(has(run.output, "[PASS] 31 egress limited to the policy — mode allowlist")) << run.output;
    for (const char* id : {"12", "13", "14", "15", "16", "17"})
      EXPECT_TRUE(has(run.output, std::string("[BLOCKED] ") + id + " ")) << id << "\n" << run.output;
  }
  NetWorld::RunOptions weak = as(As::Root, "--test-weaken allowlist-host-net");
  weak.verify = true;
  CommandResult battery = world->cordon_run(config("allowlist"), "", weak);
  EXPECT_TRUE(
      has(battery.output, "[FAIL] 31 egress limited to the policy — mode allowlist: interfaces besides loopback"))
      << battery.output;
  CommandResult host_net = world->cordon_run(config("allowlist"), probe() + " --only 13,14,15,17",
                                             as(As::Root, "--test-weaken allowlist-host-net"));
  for (const char* id : {"13", "14", "15", "17"})
    EXPECT_TRUE(has(host_net.output, std::string("[ESCAPED] ") + id + " ")) << id << "\n" << host_net.output;
  CommandResult open_proxy = world->cordon_run(config("allowlist"), probe() + " --only 12,13,16",
                                               as(As::Root, "--test-weaken proxy-allow-all"));
  for (const char* id : {"12", "13", "16"})
    EXPECT_TRUE(has(open_proxy.output, std::string("[ESCAPED] ") + id + " ")) << id << "\n" << open_proxy.output;
  // The battery's proxy test sees an open proxy too.
  NetWorld::RunOptions open_battery = as(As::Root, "--test-weaken proxy-allow-all");
  open_battery.verify = true;
  CommandResult open = world->cordon_run(config("allowlist"), "", open_battery);
  EXPECT_TRUE(has(open.output, "[FAIL] 31 egress limited to the policy — mode allowlist: the proxy answered"))
      << open.output;
}

// Real clients through the proxy: curl over HTTPS (end to end through CONNECT, trusting the
// world's CA), git clone and push over smart HTTP (POST bodies through the absolute-form
// path); the jail's own resolver path is not involved.
TEST_F(NetworkModes, AllowlistCarriesHttpsAndGit) {
  const char* script =
      "curl -sS -m 10 --cacert ca.pem https://internet.test:8443/hello.txt\n"
      "rm -rf clone && git clone -q http://internet.test:8000/git/smart.git clone && git -C clone log --format=%s\n"
      "git -C clone -c user.name=a -c user.email=a@a commit -q --allow-empty -m \"agent commit $1\"\n"
      "git -C clone push -q origin HEAD:refs/heads/agent-$1 && echo pushed\n"
      "curl -sS -m 10 --cacert ca.pem -o /dev/null -w 'unlisted %{http_code}\\n' https://lan.test:8443/ || true\n";
  for (As who : {As::Root, As::User}) {
    world->put_in_workspaces("clients.sh", script);
    clear_records(who);
    const std::string branch = who == As::Root ? "root" : "user";
    CommandResult run = world->cordon_run(config("allowlist"), "/bin/sh clients.sh " + branch, as(who));
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_TRUE(has(run.output, "hello internet")) << run.output;
    EXPECT_TRUE(has(run.output, "world commit")) << run.output;
    EXPECT_TRUE(has(run.output, "pushed")) << run.output;
    CommandResult landed = run_shell("git -C " + world->dir + "/web/git/smart.git log -1 --format=%s agent-" + branch);
    EXPECT_EQ(landed.output, "agent commit " + branch + "\n") << run.output;  // the push reached the origin
    EXPECT_TRUE(has(run.output, "CONNECT tunnel failed, response 403")) << run.output;
    Json receipt = latest_receipt(who);
    int tls_bytes = 0, git_requests = 0;
    for (const auto& d : receipt["egress"]["decisions"]) {
      if (d["destination"] == "internet.test:8443" && d["allowed"].get<bool>()) tls_bytes = d["bytes_down"].get<int>();
      if (d["destination"] == "internet.test:8000" && d["allowed"].get<bool>()) ++git_requests;
    }
    // Smart HTTP: the refs and the upload-pack POST for the clone, the same two for the push.
    EXPECT_GE(git_requests, 4) << receipt.dump();
    EXPECT_GT(tls_bytes, 1000) << receipt.dump();  // a TLS handshake and the body, relayed
  }
}

// Package managers through the proxy, as an agent runs them: pip from an index and npm from a
// tarball URL on the world's origin (their update checks, if any, are refused by the proxy).
TEST_F(NetworkModes, AllowlistCarriesPipAndNpm) {
  if (!path_exists(world->dir + "/web/root/demo-1.0.0.tgz")) GTEST_SKIP() << "npm could not pack the test package";
  const char* script =
      "set -e; rm -rf venv app; /usr/bin/python3 -m venv venv\n"
      "venv/bin/pip install -q --disable-pip-version-check --trusted-host internet.test --index-url "
      "http://internet.test:8000/simple/ demo-pkg\n"
      "venv/bin/python -c 'import demo_pkg; print(demo_pkg.VALUE)'\n"
      "mkdir app && cd app && echo '{\"name\":\"app\",\"version\":\"1.0.0\"}' > package.json\n"
      "npm install --no-audit --no-fund --no-update-notifier --silent http://internet.test:8000/demo-1.0.0.tgz\n"
      "node -e 'console.log(require(\"demo\"))'\n";
  for (As who : {As::Root, As::User}) {
    world->put_in_workspaces("packages.sh", script);
    CommandResult run = world->cordon_run(config("allowlist"), "/bin/sh packages.sh", as(who));
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_TRUE(has(run.output, "py-ok")) << run.output;
    EXPECT_TRUE(has(run.output, "node-ok")) << run.output;
  }
}

// A SIGKILLed launcher takes the proxy and the sandbox with it: the proxy's parent-death
// signal, the session's init. The session record is swept as crashed by the next launch.
TEST_F(NetworkModes, AllowlistLauncherKilledLeavesNoProxyOrSandbox) {
  const std::string marker = "/bin/sleep 31.25";
  const std::string script = world->dir + "/scripts/kill-allowlist.sh";
  // Bounded: the proxy must be up within 5 s (it is, within milliseconds), then SIGKILL.
  write_file(script,
             "\"$@\" &\npid=$!\ni=0\n"
             "while [ $i -lt 100 ] && ! pgrep --ns $$ --nslist net -f cordon-egress-proxy >/dev/null; do sleep 0.05; "
             "i=$((i + 1)); done\n"
             "pgrep --ns $$ --nslist net -f cordon-egress-proxy >/dev/null && echo PROXY-WAS-UP\n"
             "sleep 0.3\nkill -9 $pid\nwait $pid 2>/dev/null\necho KILLED\n",
             0755);
  for (As who : {As::Root, As::User}) {
    NetWorld::RunOptions o = as(who);
    o.wrapper = "/bin/sh " + script;
    CommandResult run = world->cordon_run(config("allowlist"), marker, o);
    EXPECT_TRUE(has(run.output, "PROXY-WAS-UP")) << run.output;
    EXPECT_TRUE(has(run.output, "KILLED")) << run.output;
    std::string left;
    for (int i = 0; i < 40; ++i) {  // the kernel's kills land within moments
      left = world->stray_processes();
      if (left.empty()) break;
      ::usleep(50 * 1000);
    }
    EXPECT_EQ(left, "") << "the proxy or the sandbox outlived its launcher";
    EXPECT_EQ(run_shell("pgrep -xf '" + marker + "'").status, 1) << "the sandboxed command outlived its launcher";
  }
}

// The proxy in its own Landlock domain under its seccomp filter ([sandbox] landlock = "auto";
// docs/landlock.md "The helpers outside the sandbox"): it still resolves and carries for the
// sandbox, and the manifest records its confinement. The control, --test-weaken
// proxy-unconfined, records no filter and no domain.
TEST_F(NetworkModes, AllowlistProxyConfinedStillCarriesAndIsRecorded) {
  world->write_config("allowlist-landlock",
                      "[sandbox]\nlandlock = \"auto\"\n[network]\nmode = \"allowlist\"\nallow = [\"lan.test:8080\", "
                      "\"internet.test:8000\", \"internet.test:8443\", \"localhost\"]\n");
  const int abi = landlock::landlock_abi().abi;
  auto manifest_of = [&](As who) {
    const std::string text = read_file(latest_record(who));
    return Json::parse(text.substr(0, text.find('\n')), nullptr, false);
  };
  for (As who : {As::Root, As::User}) {
    clear_records(who);
    CommandResult run = world->cordon_run(config("allowlist-landlock"), "/bin/sh attempts.sh", as(who));
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_TRUE(has(run.output, "internet: OK hello internet")) << run.output;
    EXPECT_TRUE(has(run.output, "tunnel: OK hello internet")) << run.output;
    const Json c = manifest_of(who)["egress_proxy_confinement"];
    ASSERT_TRUE(c.is_object()) << manifest_of(who).dump();
    EXPECT_EQ(c["landlock_mode"], "auto") << c.dump();
    EXPECT_EQ(c["landlock"], abi >= 1) << c.dump();
    EXPECT_EQ(c["seccomp_rules_digest"].get<std::string>().size(), 64u) << c.dump();
  }
  clear_records(As::Root);
  CommandResult control = world->cordon_run(config("allowlist-landlock"), "/bin/sh attempts.sh",
                                            as(As::Root, "--test-weaken proxy-unconfined"));
  ASSERT_EQ(control.status, 0) << control.output;
  EXPECT_TRUE(has(control.output, "internet: OK hello internet")) << control.output;
  const Json c = manifest_of(As::Root)["egress_proxy_confinement"];
  EXPECT_EQ(c["landlock"], false) << c.dump();
  EXPECT_EQ(c["seccomp_rules_digest"], "none") << c.dump();
  // Another mode records none.
  clear_records(As::Root);
  CommandResult offline = world->cordon_run(config("offline"), "/bin/true", as(As::Root));
  ASSERT_EQ(offline.status, 0) << offline.output;
  EXPECT_TRUE(manifest_of(As::Root)["egress_proxy_confinement"].is_null());
}

// `cordon run --allow RULE` widens the allow-list for one run, only within the operator's
// [network] user_allow, and is recorded. The denied run's exit line names it. From inside, the
// session cannot use it on itself: its own cordon cannot launch (no user namespaces, no
// config) and the running proxy's rules stay as launched.
TEST_F(NetworkModes, RunAllowWidensOneRunWithinUserAllowAndTheSessionCannotUseIt) {
  world->write_config("allowlist-user",
                      "[network]\nmode = \"allowlist\"\nallow = [\"localhost\"]\nuser_allow = [\"*.test:8000\"]\n");
  const std::string fetch = "curl -sS -m 5 http://internet.test:8000/hello.txt";
  for (As who : {As::Root, As::User}) {
    CommandResult denied = world->cordon_run(config("allowlist-user"), fetch, as(who));
    EXPECT_FALSE(has(denied.output, "hello internet")) << denied.output;
    EXPECT_TRUE(has(denied.output, "or for one run: cordon run --network allowlist --allow internet.test:8000 ...")) << denied.output;

    clear_records(who);
    CommandResult allowed =
        world->cordon_run(config("allowlist-user"), fetch, as(who, "--network allowlist --allow internet.test:8000"));  // the hint, as printed
    EXPECT_EQ(allowed.status, 0) << allowed.output;
    EXPECT_TRUE(has(allowed.output, "hello internet")) << allowed.output;
    const std::string record = read_file(latest_record(who));
    const Json manifest = Json::parse(record.substr(0, record.find('\n')), nullptr, false);
    EXPECT_EQ(manifest["network"]["run_allow"], Json::array({"internet.test:8000"})) << record;

    CommandResult outside = world->cordon_run(config("allowlist-user"), "/bin/true", as(who, "--allow lan.test:8080"));
    EXPECT_EQ(outside.status, 125) << outside.output;
    EXPECT_TRUE(has(outside.output, "--allow lan.test:8080 is not within [network] user_allow (*.test:8000)"))
        << outside.output;
    // Without the port the pattern names: refused, with the rule that fits.
    CommandResult portless = world->cordon_run(config("allowlist-user"), "/bin/true", as(who, "--allow internet.test"));
    EXPECT_EQ(portless.status, 125) << portless.output;
    EXPECT_TRUE(has(portless.output, "the pattern *.test:8000 does: --allow internet.test:8000 is within it"))
        << portless.output;
    CommandResult jailed = world->cordon_run(config("jail"), "/bin/true", as(who, "--allow internet.test:8000"));
    EXPECT_EQ(jailed.status, 125) << jailed.output;
    EXPECT_TRUE(has(jailed.output, "--allow adds to the allow-list of network.mode = \"allowlist\"")) << jailed.output;
  }
  // Inside a session that may not reach internet.test, the agent runs cordon itself (bound in
  // read-only for the attempt) with --allow and the config path: it cannot launch, and the
  // session's proxy still refuses the destination afterwards.
  const std::string inst = world->dir + "/inst";
  CommandResult self = world->cordon_run(
      config("allowlist-user"),
      "sh -c '" + inst + "/bin/cordon --config " + config("allowlist-user") +
          " run --allow internet.test:8000 -- " + fetch + "; echo NESTED=$?; " + fetch + "; echo AFTER=$?'",
      as(As::User, "--test-weaken bind:" + inst));
  EXPECT_FALSE(has(self.output, "hello internet")) << self.output;
  EXPECT_FALSE(has(self.output, "NESTED=0")) << self.output;
  EXPECT_TRUE(has(self.output, "AFTER=")) << self.output;
  EXPECT_TRUE(has(self.output, "internet.test:8000 denied: not in the allow-list")) << self.output;
}

TEST_F(NetworkModes, RunFlagOnlyNarrows) {
  CommandResult narrowed = world->cordon_run(config("jail"), "/bin/sh attempts.sh", as(As::Root, "--network offline"));
  EXPECT_EQ(narrowed.status, 0) << narrowed.output;
  EXPECT_TRUE(has(narrowed.output, "internet: FAIL")) << narrowed.output;
  CommandResult widened = world->cordon_run(config("offline"), "/bin/true", as(As::Root, "--network jail"));
  EXPECT_EQ(widened.status, 125) << widened.output;
  EXPECT_TRUE(has(widened.output, "--network jail would widen the configured network.mode = \"offline\""))
      << widened.output;
  CommandResult unknown = world->cordon_run(config("jail"), "/bin/true", as(As::Root, "--network open"));
  EXPECT_EQ(unknown.status, 125) << unknown.output;
  EXPECT_TRUE(has(unknown.output, "not one of host, jail, allowlist, offline")) << unknown.output;
}

}  // namespace
}  // namespace cordon::testing
