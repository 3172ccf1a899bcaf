// cordon-egress-proxy, the real binary, in an offline world of its own (egress_world/world.sh):
// each test runs under `unshare -n -m`, so every packet stays in a fresh network namespace
// and names resolve from a private /etc/hosts. Needs root (CI runs as root); skips otherwise.
#include <unistd.h>

#include <string>
#include <vector>

#include "common/json_codec.h"
#include "jail_world.h"
#include "support.h"

namespace cordon::testing {
namespace {

const std::string kWorld = std::string(CORDON_SOURCE_DIR) + "/tests/integration/egress_world";
const std::string kProxy = std::string(CORDON_BUILD_DIR) + "/libexec/cordon/cordon-egress-proxy";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class EgressProxy : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root: unshare -n -m";
    if (run_shell("command -v unshare curl ip >/dev/null && test -x /usr/bin/python3").status != 0)
      GTEST_SKIP() << "needs unshare, curl, ip and /usr/bin/python3";
  }

  // Runs `body` (shell, sourced by world.sh after the world and its helpers exist).
  CommandResult world(const std::string& body, int timeout_seconds = 60) {
    write_file(dir_.path() + "/body.sh", body);
    return run_shell(
        "unshare -n -m /bin/sh " + kWorld + "/world.sh " + dir_.path() + " " + kProxy + " " + dir_.path() + "/body.sh",
        timeout_seconds);
  }

  // The decision log's lines, each parsed strictly.
  std::vector<Json> log_lines() {
    std::vector<Json> out;
    std::string text = path_exists(log_path()) ? read_file(log_path()) : "";
    size_t at = 0;
    while (at < text.size()) {
      size_t nl = text.find('\n', at);
      EXPECT_NE(nl, std::string::npos) << "a log line without its newline";
      if (nl == std::string::npos) break;
      std::string problem;
      auto doc = parse_json(text.substr(at, nl - at), &problem);
      EXPECT_TRUE(doc) << problem;
      if (doc) out.push_back(*doc);
      at = nl + 1;
    }
    return out;
  }
  std::string log_path() const { return dir_.path() + "/log"; }
  std::string client() const { return "/usr/bin/python3 " + kWorld + "/client.py"; }

  TempDir dir_{"/tmp/cordon-egress-it-"};
};

TEST_F(EgressProxy, AllowedConnectTunnelAndAbsoluteGet) {
  auto r = world(
      "start_proxy --allow allowed.test:8080\n"
      "echo '--- tunnel'; via http://allowed.test:8080/index.txt -p\n"
      "echo '--- get'; via http://allowed.test:8080/index.txt\n"
      "wait_log_lines 2\n");
  ASSERT_EQ(r.status, 0) << r.output;
  auto tunnel = r.output.substr(0, r.output.find("--- get"));
  EXPECT_TRUE(has(tunnel, "hello from the origin\n\ncode=200 connect=200")) << r.output;
  EXPECT_TRUE(has(r.output.substr(r.output.find("--- get")), "hello from the origin\n\ncode=200 connect=000"))
      << r.output;
  auto lines = log_lines();
  ASSERT_EQ(lines.size(), 2u) << read_file(log_path());
  EXPECT_EQ(lines[0]["destination"], "allowed.test:8080");
  EXPECT_EQ(lines[0]["method"], "CONNECT");
  EXPECT_EQ(lines[0]["allowed"], true);
  EXPECT_EQ(lines[0]["address"], "203.0.113.10");
  EXPECT_EQ(lines[0]["status"], 200);
  EXPECT_EQ(lines[1]["method"], "GET");
  EXPECT_EQ(lines[1]["status"], 200);  // the origin's
  for (const auto& line : lines) {
    EXPECT_GT(line["bytes_up"].get<long long>(), 20) << line.dump();
    EXPECT_GT(line["bytes_down"].get<long long>(), 22) << line.dump();  // the body and headers
    EXPECT_TRUE(line.contains("duration_ms"));
    EXPECT_EQ(line["ended"], "closed");
    EXPECT_TRUE(has(line["reason"].get<std::string>(), "allowed.test:8080")) << line.dump();
  }
}

TEST_F(EgressProxy, AbsoluteFormDropsProxyHeadersAndForcesClose) {
  auto r = world(
      "start_proxy --allow allowed.test:8080\n"
      "via http://allowed.test:8080/headers --proxy-user u:secret -H 'X-Kept: yes'\n"
      "via http://allowed.test:8080/upload -d 'posted body'\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "X-Kept: yes")) << r.output;
  EXPECT_TRUE(has(r.output, "Connection: close")) << r.output;
  EXPECT_TRUE(has(r.output, "Host: allowed.test:8080")) << r.output;
  EXPECT_FALSE(has(r.output, "Proxy-")) << r.output;
  EXPECT_TRUE(has(r.output, "posted body\ncode=200")) << r.output;
}

TEST_F(EgressProxy, DeniedNameAnswers403NamingTheKey) {
  auto r = world(
      "start_proxy --allow allowed.test:8080\n"
      "echo '--- get'; via http://other.test:8080/index.txt -i\n"
      "echo '--- tunnel'; via http://other.test:8080/ -p\n"
      "echo '--- raw'; " +
      client() +
      " send $PORT 'CONNECT other.test:443 HTTP/1.1\\r\\n\\r\\n'\n"
      "wait_log_lines 3\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "HTTP/1.1 403 Forbidden")) << r.output;
  EXPECT_TRUE(has(r.output, "X-Cordon-Denied: not-allowed")) << r.output;
  EXPECT_TRUE(has(r.output, "other.test:8080 denied: not in the allow-list")) << r.output;
  EXPECT_TRUE(has(r.output, "add \"other.test:8080\" to [network] allow")) << r.output;
  EXPECT_TRUE(has(r.output, "connect=403")) << r.output;
  EXPECT_TRUE(has(r.output, "add \"other.test:443\" to [network] allow")) << r.output;
  auto lines = log_lines();
  ASSERT_EQ(lines.size(), 3u);
  for (const auto& line : lines) {
    EXPECT_EQ(line["allowed"], false);
    EXPECT_EQ(line["status"], 403);
    EXPECT_EQ(line["reason"], "not in the allow-list");
    EXPECT_FALSE(line.contains("address"));
  }
}

TEST_F(EgressProxy, RebindingNameIsRefused) {
  auto r = world(
      "start_proxy --allow rebind.test:8080 --allow local.test:8081\n"
      "via http://rebind.test:8080/index.txt -i\n"
      "via http://local.test:8081/index.txt -i\n"
      "wait_log_lines 2\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "X-Cordon-Denied: refused-address")) << r.output;
  // Both of its addresses are refused; the body names the first in the resolver's order.
  EXPECT_TRUE(has(r.output, "rebind.test resolves to a refused address 10.1.2.3 (in 10.0.0.0/8") ||
              has(r.output, "rebind.test resolves to a refused address 127.0.0.1 (in 127.0.0.0/8"))
      << r.output;
  EXPECT_TRUE(has(r.output, "local.test resolves to a refused address 127.0.0.1 (in 127.0.0.0/8")) << r.output;
  EXPECT_FALSE(has(r.output, "hello from the origin")) << r.output;
  auto lines = log_lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["status"], 403);
  EXPECT_FALSE(lines[0].contains("address"));
}

TEST_F(EgressProxy, NameWithARefusedAndAnAcceptableAddressUsesOnlyTheAcceptable) {
  auto r = world(
      "start_proxy --allow mixed.test:8080\n"
      "via http://mixed.test:8080/index.txt\n"
      "wait_log_lines 1\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "hello from the origin\n\ncode=200")) << r.output;
  auto lines = log_lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["address"], "203.0.113.10");
}

TEST_F(EgressProxy, RawIpNeedsAnIpRuleAndLoopbackIsRefused) {
  auto r = world(
      "start_proxy --allow allowed.test:8080\n"
      "echo '--- names only'; via http://203.0.113.10:8080/index.txt -i; via http://127.0.0.1:8081/index.txt -i\n"
      "kill $PROXY_PID; wait $PROXY_PID || true\n"
      "start_proxy --allow 203.0.113.10:8080 --allow local.test:8081\n"
      "echo '--- ip rule'; via http://203.0.113.10:8080/index.txt -i; via http://local.test:8081/index.txt -i\n");
  ASSERT_EQ(r.status, 0) << r.output;
  auto names_only = r.output.substr(0, r.output.find("--- ip rule"));
  auto ip_rule = r.output.substr(r.output.find("--- ip rule"));
  EXPECT_TRUE(has(names_only, "X-Cordon-Denied: raw-ip")) << r.output;
  EXPECT_TRUE(has(names_only, "add \"203.0.113.10:8080\" to [network] allow")) << r.output;
  EXPECT_TRUE(has(names_only, "add \"127.0.0.1:8081\" to [network] allow")) << r.output;
  EXPECT_FALSE(has(names_only, "hello from the origin")) << r.output;
  EXPECT_TRUE(has(ip_rule, "hello from the origin")) << r.output;
  EXPECT_TRUE(has(ip_rule, "refused address 127.0.0.1")) << r.output;
}

TEST_F(EgressProxy, DenyRuleWinsAndResolutionFailureIs502) {
  auto r = world(
      "start_proxy --allow '*.test:8080' --deny other.test\n"
      "via http://other.test:8080/ -i; via http://nowhere.test:8080/ -i\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "X-Cordon-Denied: denied-by-rule")) << r.output;
  EXPECT_TRUE(has(r.output, "denied by rule \"other.test\" in [network] deny")) << r.output;
  EXPECT_TRUE(has(r.output, "HTTP/1.1 502 Bad Gateway")) << r.output;
  EXPECT_TRUE(has(r.output, "cannot resolve nowhere.test")) << r.output;
}

TEST_F(EgressProxy, MalformedOversizeAndOriginFormAre4xx) {
  auto big = "GET http://allowed.test:8080/ HTTP/1.1\\r\\nHost: allowed.test\\r\\nX-Big: " + std::string(2000, 'a') +
             "\\r\\n\\r\\n";
  auto r = world("start_proxy --allow allowed.test:8080 --max-header-bytes 1024\n" + client() +
                 " send $PORT 'hello there\\r\\n\\r\\n'\n" + client() +
                 " send $PORT 'GET /index.txt HTTP/1.1\\r\\nHost: allowed.test\\r\\n\\r\\n'\n" + client() +
                 " send $PORT 'GET http://allowed.test:8080/ HTTP/1.1\\r\\n\\r\\n'\n" + client() + " send $PORT '" +
                 big + "'\nwait_log_lines 4\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "malformed request line")) << r.output;
  EXPECT_TRUE(has(r.output, "origin-form request")) << r.output;
  EXPECT_TRUE(has(r.output, "missing Host header")) << r.output;
  EXPECT_TRUE(has(r.output, "HTTP/1.1 431 Request Header Fields Too Large")) << r.output;
  auto lines = log_lines();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0]["status"], 400);
  EXPECT_EQ(lines[3]["status"], 431);
}

// A stand-in origin on 127.0.0.1:PORT that appends each connection's request head to OUT and
// answers "recorded": what reached the origin, byte for byte. Every wait is bounded.
const char* const kRecorder = R"(import socket, sys
port, out, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(16)
s.settimeout(60)
open(ready, "w").write("ready\n")
while True:
    c, _ = s.accept()
    c.settimeout(5)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = c.recv(4096)
            if not chunk:
                break
            data += chunk
    except socket.timeout:
        pass
    with open(out, "ab") as f:
        f.write(b"--- connection\n" + data)
    c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 9\r\n\r\nrecorded\n")
    c.close()
)";

TEST_F(EgressProxy, BareCrInAHeaderValueIsRefusedAndNeverReachesTheOrigin) {
  write_file(dir_.path() + "/recorder.py", kRecorder);
  auto r = world(
      "$PY $D/recorder.py 8090 $D/origin.got $D/recorder.ready & PIDS=\"$PIDS $!\"\n"
      "for _ in $(seq 200); do [ -f $D/recorder.ready ] && break; sleep 0.05; done\n"
      "start_proxy --allow 127.0.0.1:8090\n"
      "echo '--- evil'; " +
      client() +
      " send $PORT 'GET http://127.0.0.1:8090/ HTTP/1.1\\r\\nHost: 127.0.0.1:8090\\r\\n"
      "X-Evil: a\\rX-Smuggled: 1\\r\\n\\r\\n'\n"
      "echo '--- good'; " +
      client() +
      " send $PORT 'GET http://127.0.0.1:8090/ HTTP/1.1\\r\\nHost: 127.0.0.1:8090\\r\\nX-Good: 1\\r\\n\\r\\n'\n"
      "wait_log_lines 2\n"
      "echo '--- origin got'; cat $D/origin.got\n");
  ASSERT_EQ(r.status, 0) << r.output;
  auto evil = r.output.substr(0, r.output.find("--- good"));
  auto good = r.output.substr(r.output.find("--- good"), r.output.find("--- origin got") - r.output.find("--- good"));
  auto origin = r.output.substr(r.output.find("--- origin got"));
  EXPECT_TRUE(has(evil, "HTTP/1.1 400 Bad Request")) << r.output;
  EXPECT_TRUE(has(evil, "X-Cordon-Denied: control-character-in-header-value")) << r.output;
  EXPECT_TRUE(has(evil, "control character in a header value")) << r.output;
  EXPECT_FALSE(has(evil, "recorded")) << r.output;
  EXPECT_TRUE(has(good, "recorded")) << r.output;  // the control: the same origin, reachable
  // Exactly one connection reached the origin: the good request's.
  EXPECT_EQ(origin.find("--- connection"), origin.rfind("--- connection")) << r.output;
  EXPECT_TRUE(has(origin, "X-Good: 1")) << r.output;
  EXPECT_FALSE(has(origin, "X-Evil")) << r.output;
  EXPECT_FALSE(has(origin, "X-Smuggled")) << r.output;
  auto lines = log_lines();
  ASSERT_EQ(lines.size(), 2u) << read_file(log_path());
  EXPECT_EQ(lines[0]["status"], 400);
  EXPECT_EQ(lines[0]["allowed"], false);
  EXPECT_TRUE(has(lines[0]["reason"].get<std::string>(), "control character in a header value")) << lines[0].dump();
  EXPECT_FALSE(lines[0].contains("address"));
  EXPECT_EQ(lines[1]["status"], 200);
}

TEST_F(EgressProxy, SigtermEndsOpenTunnelsAndExitsZero) {
  auto r = world("start_proxy --allow allowed.test:8080\n" + client() +
                 " tunnel $PORT allowed.test:8080 20 > $D/tunnel.out & CL=$!\n"
                 "for _ in $(seq 100); do grep -q 200 $D/tunnel.out 2>/dev/null && break; sleep 0.05; done\n"
                 "kill -TERM $PROXY_PID; rc=0; wait $PROXY_PID || rc=$?; echo proxy-exit=$rc\n"
                 "wait $CL; cat $D/tunnel.out\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "HTTP/1.1 200 Connection established")) << r.output;
  EXPECT_TRUE(has(r.output, "proxy-exit=0")) << r.output;
  EXPECT_TRUE(has(r.output, "tunnel: closed")) << r.output;  // the proxy closed it, not the timeout
  auto lines = log_lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["ended"], "session ended");
  EXPECT_EQ(lines[0]["allowed"], true);
}

TEST_F(EgressProxy, OverTheConnectionLimitAnswers503) {
  auto r = world("start_proxy --allow allowed.test:8080 --max-connections 2\n" + client() +
                 " hold $PORT 2 0 'GET http://allowed.test:8080/index.txt HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n'\n"
                 "wait_log_lines 3\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "HTTP/1.1 503 Service Unavailable")) << r.output;
  EXPECT_TRUE(has(r.output, "too many connections (at most 2 at once")) << r.output;
  bool recorded = false;
  for (const auto& line : log_lines()) recorded |= line["status"] == 503;
  EXPECT_TRUE(recorded) << read_file(log_path());
}

TEST_F(EgressProxy, SlowClientDoesNotBlockOthersAndTimesOut) {
  auto r = world("start_proxy --allow allowed.test:8080 --header-timeout-seconds 2\n" + client() +
                 " slow $PORT 20 > $D/slow.out & CL=$!\n"
                 "echo '--- others'; via http://allowed.test:8080/index.txt; via http://allowed.test:8080/ -p\n"
                 "wait $CL; cat $D/slow.out\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "hello from the origin\n\ncode=200")) << r.output;
  EXPECT_TRUE(has(r.output, "slow: HTTP/1.1 408 Request Timeout")) << r.output;
  bool timed_out = false;
  for (const auto& line : log_lines()) timed_out |= line["status"] == 408;
  EXPECT_TRUE(timed_out) << read_file(log_path());
}

TEST_F(EgressProxy, BulkTunnelCountsEveryByte) {
  auto r = world(
      "head -c 8388608 /dev/zero > $D/www/blob\n"
      "start_proxy --allow allowed.test:8080\n"
      "via http://allowed.test:8080/blob -p -o /dev/null\n"
      "wait_log_lines 1\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "code=200")) << r.output;
  auto lines = log_lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_GT(lines[0]["bytes_down"].get<long long>(), 8388608) << lines[0].dump();
}

TEST_F(EgressProxy, UsageErrorsExit64) {
  auto r = run_shell(kProxy + " --log-fd 2; echo rc=$?; " + kProxy +
                     " --listen-fd 0 --log-fd 2 </dev/null; echo rc=$?; " + kProxy +
                     " --listen-fd 3 --log-fd 2 --allow 'a*.test' 3</dev/null; echo rc=$?");
  EXPECT_TRUE(has(r.output, "--listen-fd and --log-fd are required\n")) << r.output;
  EXPECT_TRUE(has(r.output, "is not a listening socket")) << r.output;
  EXPECT_TRUE(has(r.output, "invalid egress rule \"a*.test\"")) << r.output;
  size_t statuses = 0;
  for (size_t at = r.output.find("rc=64"); at != std::string::npos; at = r.output.find("rc=64", at + 1)) ++statuses;
  EXPECT_EQ(statuses, 3u) << r.output;
}

}  // namespace
}  // namespace cordon::testing
