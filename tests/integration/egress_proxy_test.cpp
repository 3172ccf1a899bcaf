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
  // The log's lines whose `key` is `value`.
  std::vector<Json> log_lines_with(const std::string& key, const Json& value) {
    std::vector<Json> out;
    for (auto& line : log_lines())
      if (line.contains(key) && line[key] == value) out.push_back(line);
    return out;
  }
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

// A flood of denied requests past the log's bound (--max-log-bytes, 1 MiB by default): the
// whole lines stop at the bound, and the last line, written at SIGTERM, counts the rest by
// destination, so the counts stay exact while the log (a memfd the launcher holds) stays
// bounded. Before the bound every request added a line: 40 lines here, ~6 KB.
TEST_F(EgressProxy, AFloodPastTheLogsBoundIsCountedNotWritten) {
  auto r = world(
      "start_proxy --allow allowed.test:8080 --max-log-bytes 1000\n"
      "for i in $(seq 40); do via http://other.test:8080/x$i -o /dev/null >/dev/null; done\n"
      "kill -TERM $PROXY_PID; rc=0; wait $PROXY_PID || rc=$?; echo proxy-exit=$rc\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "proxy-exit=0")) << r.output;
  const std::string text = read_file(log_path());
  auto lines = log_lines();
  ASSERT_GE(lines.size(), 2u) << text;
  const Json overflow = lines.back()["overflow"];
  ASSERT_TRUE(overflow.is_object()) << text;
  EXPECT_LE(text.size() - dump_line(lines.back()).size() - 1, 1000u) << text;
  long long denied = overflow["denied"].get<long long>();
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["status"], 403);
    ++denied;
  }
  EXPECT_EQ(denied, 40) << text;
  ASSERT_EQ(overflow["destinations"].size(), 1u) << text;
  EXPECT_EQ(overflow["destinations"][0]["destination"], "other.test:8080");
  EXPECT_EQ(overflow["destinations"][0]["denied"], overflow["denied"]);
}

// Fills the proxy's connection slots the way the audit did, then asks once more:
//   slots.py PORT TARGET TUNNELS SLOW PAUSE BUSY REQUEST
// TUNNELS tunnels (CONNECT TARGET, each waited for its 200, in order), then SLOW clients that
// send half a request head; with BUSY=1 each tunnel then sends a byte every 50 ms. After PAUSE
// seconds it sends REQUEST on one more connection and prints "new: FIRST LINE", then the state
// of each held connection: "held tunnel N: open | closed | FIRST LINE" (and " (reclaimed)" when
// the answer says so). It also prints the proxy's thread count while the slots are held
// (PROXY_PID). Every wait is bounded by a socket timeout.
const char* const kSlots = R"py(import os, socket, sys, threading, time
port, target = int(sys.argv[1]), sys.argv[2]
n_tunnels, n_slow, pause, busy = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6] == "1"
request = sys.argv[7].encode().decode("unicode_escape").encode("latin-1")

def connect():
    return socket.create_connection(("127.0.0.1", port), timeout=10)

def read_all(c):
    out = b""
    try:
        while True:
            chunk = c.recv(65536)
            if not chunk:
                break
            out += chunk
    except OSError as e:
        out += b"\n[client: " + str(e).encode() + b"]"
    return out

tunnels = []
for i in range(n_tunnels):
    c = connect()
    c.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target)).encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = c.recv(4096)
        if not chunk:
            break
        answer += chunk
    print("tunnel %d: %s" % (i, answer.split(b"\r\n")[0].decode()), flush=True)
    tunnels.append(c)
slow = []
for i in range(n_slow):
    c = connect()
    c.sendall(b"GET http://" + target.encode() + b"/index.txt HTTP/1.1\r\nHo")
    slow.append(c)
stop = threading.Event()

def keep_busy(c):
    while not stop.wait(0.05):
        try:
            c.sendall(b"x")
        except OSError:
            return

if busy:
    for c in tunnels:
        threading.Thread(target=keep_busy, args=(c,), daemon=True).start()
time.sleep(pause)
c = connect()
c.sendall(request)
answer = read_all(c)
print("new: %s" % answer.split(b"\r\n")[0].decode(), flush=True)
print("new body: %s" % answer.split(b"\r\n\r\n", 1)[-1].decode().strip(), flush=True)
print("proxy threads: %d" % len(os.listdir("/proc/%s/task" % os.environ["PROXY_PID"])), flush=True)
stop.set()
time.sleep(0.5)
for name, held in (("tunnel", tunnels), ("slow", slow)):
    for i, c in enumerate(held):
        c.setblocking(False)
        try:
            data = c.recv(65536)
            state = data.split(b"\r\n")[0].decode() if data else "closed"
            state += " (reclaimed)" if b"reclaimed" in data else ""
        except BlockingIOError:
            state = "open"
        except OSError as e:
            state = "error: %s" % e
        print("held %s %d: %s" % (name, i, state), flush=True)
)py";

// The audit's load, smaller: every slot (8 here) held by an idle tunnel or a client still
// sending its head. Before, every other request got 503 until one timed out (300 s for a
// tunnel); now the tunnel idle the longest (past --reclaim-idle-seconds) gives its slot up.
TEST_F(EgressProxy, FullOfIdleTunnelsAndSlowHeadsReclaimsTheLongestIdle) {
  write_file(dir_.path() + "/slots.py", kSlots);
  auto r = world(
      "start_proxy --allow 127.0.0.1:8081 --max-connections 8 --reclaim-idle-seconds 1 --header-timeout-seconds 60\n"
      "PROXY_PID=$PROXY_PID $PY $D/slots.py $PORT 127.0.0.1:8081 4 4 1.5 0 "
      "'GET http://127.0.0.1:8081/index.txt HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n'\n"
      "wait_log_lines 9\n");
  ASSERT_EQ(r.status, 0) << r.output;
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(has(r.output, "tunnel " + std::to_string(i) + ": HTTP/1.1 200 Connection established")) << r.output;
  EXPECT_TRUE(has(r.output, "new: HTTP/1.0 200 OK")) << r.output;
  EXPECT_TRUE(has(r.output, "new body: hello from the origin")) << r.output;
  // The first tunnel was idle the longest: closed (cleanly: EOF, not a reset); the rest stay.
  EXPECT_TRUE(has(r.output, "held tunnel 0: closed\n")) << r.output;
  for (int i = 1; i < 4; ++i) EXPECT_TRUE(has(r.output, "held tunnel " + std::to_string(i) + ": open")) << r.output;
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(has(r.output, "held slow " + std::to_string(i) + ": open")) << r.output;
  // The bound held: the accept loop and at most 8 connection threads, the new one included.
  EXPECT_TRUE(has(r.output, "proxy threads: 9\n") || has(r.output, "proxy threads: 8\n")) << r.output;
  // One line per connection (the held ones once the client left): one reclaimed, the tunnel.
  EXPECT_EQ(log_lines().size(), 9u) << read_file(log_path());
  auto reclaimed = log_lines_with("ended", "reclaimed: idle while the proxy was full");
  ASSERT_EQ(reclaimed.size(), 1u) << read_file(log_path());
  EXPECT_EQ(reclaimed[0]["method"], "CONNECT");
  EXPECT_EQ(reclaimed[0]["allowed"], true);
  EXPECT_EQ(reclaimed[0]["status"], 200);
  auto get = log_lines_with("method", "GET");
  ASSERT_EQ(get.size(), 1u) << read_file(log_path());
  EXPECT_EQ(get[0]["status"], 200);
}

// Every slot held by a client still sending its head: the oldest is answered 408 and closed.
TEST_F(EgressProxy, FullOfSlowHeadsReclaimsTheOldest) {
  write_file(dir_.path() + "/slots.py", kSlots);
  auto r = world(
      "start_proxy --allow 127.0.0.1:8081 --max-connections 8 --header-timeout-seconds 60\n"
      "PROXY_PID=$PROXY_PID $PY $D/slots.py $PORT 127.0.0.1:8081 0 8 0 0 "
      "'GET http://127.0.0.1:8081/index.txt HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n'\n"
      "wait_log_lines 9\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "new: HTTP/1.0 200 OK")) << r.output;
  EXPECT_TRUE(has(r.output, "held slow 0: HTTP/1.1 408 Request Timeout (reclaimed)")) << r.output;
  for (int i = 1; i < 8; ++i) EXPECT_TRUE(has(r.output, "held slow " + std::to_string(i) + ": open")) << r.output;
  EXPECT_EQ(log_lines().size(), 9u) << read_file(log_path());
  auto reclaimed = log_lines_with("ended", "reclaimed: idle while the proxy was full");
  ASSERT_EQ(reclaimed.size(), 1u) << read_file(log_path());
  EXPECT_EQ(reclaimed[0]["status"], 408);
  EXPECT_EQ(reclaimed[0]["allowed"], false);
  EXPECT_EQ(reclaimed[0]["reason"], "no complete request head when its slot was reclaimed");
  auto get = log_lines_with("method", "GET");
  ASSERT_EQ(get.size(), 1u) << read_file(log_path());
  EXPECT_EQ(get[0]["status"], 200);
}

// The control: every slot busy (tunnels moving bytes, none idle past the grace): nothing is
// reclaimed and the new request still gets the 503. The grace is long here so that a stalled
// test machine cannot make a busy tunnel look idle.
TEST_F(EgressProxy, FullOfBusyTunnelsStillAnswers503) {
  write_file(dir_.path() + "/slots.py", kSlots);
  auto r = world(
      "start_proxy --allow 127.0.0.1:8081 --max-connections 8 --reclaim-idle-seconds 60\n"
      "PROXY_PID=$PROXY_PID $PY $D/slots.py $PORT 127.0.0.1:8081 8 0 1.5 1 "
      "'GET http://127.0.0.1:8081/index.txt HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n'\n"
      "wait_log_lines 9\n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "new: HTTP/1.1 503 Service Unavailable")) << r.output;
  EXPECT_TRUE(has(r.output, "too many connections (at most 8 at once, --max-connections)")) << r.output;
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(has(r.output, "held tunnel " + std::to_string(i) + ": open")) << r.output;
  EXPECT_TRUE(has(r.output, "proxy threads: 9\n")) << r.output;
  EXPECT_EQ(log_lines().size(), 9u) << read_file(log_path());
  EXPECT_TRUE(log_lines_with("ended", "reclaimed: idle while the proxy was full").empty()) << read_file(log_path());
  auto refused = log_lines_with("status", 503);
  ASSERT_EQ(refused.size(), 1u) << read_file(log_path());
  EXPECT_TRUE(has(refused[0]["reason"].get<std::string>(), "and none idle to reclaim")) << refused[0].dump();
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
