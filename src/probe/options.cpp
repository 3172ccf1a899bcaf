// Hand-written argument parsing: the probe has a handful of options and no dependencies.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "probe/context.h"

namespace cordon::probe {
namespace {

bool parse_uint(const std::string& text, unsigned long long max, unsigned long long* out) {
  if (text.empty() || text.size() > 20) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno || v > max) return false;
  *out = v;
  return true;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find(sep, at);
    if (end == std::string::npos) end = text.size();
    if (end > at) parts.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return parts;
}

// "tcp:10.1.2.3:8080", "udp:[fd00::10]:53".
bool parse_target(const std::string& text, NetTarget* t, std::string* error) {
  auto bad = [&](const std::string& why) {
    *error = "--net-targets: \"" + text + "\": " + why + " (expected tcp:ADDR:PORT or udp:ADDR:PORT)";
    return false;
  };
  if (text.rfind("tcp:", 0) == 0) t->tcp = true;
  else if (text.rfind("udp:", 0) == 0) t->tcp = false;
  else return bad("unknown protocol");
  std::string rest = text.substr(4);
  std::string port_text;
  if (!rest.empty() && rest[0] == '[') {
    size_t close = rest.find(']');
    if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':') return bad("bad [IPv6]:PORT");
    t->address = rest.substr(1, close - 1);
    port_text = rest.substr(close + 2);
  } else {
    size_t colon = rest.rfind(':');
    if (colon == std::string::npos) return bad("no port");
    t->address = rest.substr(0, colon);
    port_text = rest.substr(colon + 1);
  }
  unsigned long long port = 0;
  if (!parse_uint(port_text, 65535, &port) || port == 0) return bad("bad port");
  t->port = static_cast<uint16_t>(port);
  t->sa = {};
  if (t->address.find(':') == std::string::npos) {
    auto* sin = reinterpret_cast<sockaddr_in*>(&t->sa);
    sin->sin_family = AF_INET;
    sin->sin_port = htons(t->port);
    if (::inet_pton(AF_INET, t->address.c_str(), &sin->sin_addr) != 1) return bad("not an IPv4 address");
    t->family = AF_INET;
    t->sa_len = sizeof(sockaddr_in);
  } else {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(&t->sa);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(t->port);
    if (::inet_pton(AF_INET6, t->address.c_str(), &sin6->sin6_addr) != 1) return bad("not an IPv6 address");
    t->family = AF_INET6;
    t->sa_len = sizeof(sockaddr_in6);
  }
  return true;
}

}  // namespace

std::string NetTarget::text() const {
  std::string addr = family == AF_INET6 ? "[" + address + "]" : address;
  return std::string(tcp ? "tcp:" : "udp:") + addr + ":" + std::to_string(port);
}

std::string usage_text() {
  return "usage: cordon-probe [OPTIONS]\n"
         "Attempts sandbox breakouts and reports each as BLOCKED, ESCAPED or INCONCLUSIVE.\n"
         "\n"
         "  --json                     one JSON object instead of rows\n"
         "  --list                     list the probes and exit\n"
         "  --only NN,...              run only these probe ids\n"
         "  --checks-passed N          battery checks that passed (cordon verify --deep)\n"
         "  --target-pid PID[:START]   a process outside the sandbox (START: field 22 of its\n"
         "                             /proc/PID/stat on the host, to tell it from a namesake)\n"
         "  --net-targets LIST         tcp:ADDR:PORT,udp:ADDR:PORT,... of a TEST WORLD the caller\n"
         "                             built (connections are attempted: never give real hosts)\n"
         "  --host-loopback-port N     a TCP service on the host's 127.0.0.1 (repeatable, or N,M)\n"
         "  --host-abstract NAME       an abstract unix socket listening on the host (repeatable)\n"
         "  --canary PATH              a non-empty host file outside the allow-list (repeatable)\n"
         "  --timeout-ms N             per-probe time limit (default 5000)\n"
         "  --selftest                 check the verdict rules and exit\n"
         "  --version, --help\n"
         "\n"
         "Exit status: 0 SANDBOX OK (every probe BLOCKED), 2 AUDIT INCOMPLETE (some INCONCLUSIVE,\n"
         "none ESCAPED), 3 SANDBOX LEAKING (any ESCAPED), 64 usage error.\n";
}

std::optional<Options> parse_options(int argc, char** argv, std::string* error) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline = true;
      }
    }
    auto need_value = [&]() -> bool {
      if (has_inline) return true;
      if (i + 1 >= argc) {
        *error = arg + " needs a value";
        return false;
      }
      value = argv[++i];
      return true;
    };
    auto flag = [&](bool* target) {
      if (has_inline) {
        *error = arg + " takes no value";
        return false;
      }
      *target = true;
      return true;
    };
    bool ok = true;
    if (arg == "--json") ok = flag(&o.json);
    else if (arg == "--list") ok = flag(&o.list);
    else if (arg == "--selftest") ok = flag(&o.selftest);
    else if (arg == "--help" || arg == "-h") ok = flag(&o.help);
    else if (arg == "--version") ok = flag(&o.version);
    else if (arg == "--only") {
      if (!(ok = need_value())) break;
      for (auto& id : split(value, ',')) {
        unsigned long long n = 0;
        if (!parse_uint(id, 99, &n)) {
          *error = "--only: \"" + id + "\" is not a probe id";
          return std::nullopt;
        }
        o.only.push_back(n < 10 ? "0" + std::to_string(n) : std::to_string(n));
      }
    } else if (arg == "--checks-passed") {
      if (!(ok = need_value())) break;
      unsigned long long n = 0;
      if (!parse_uint(value, 10000, &n)) {
        *error = "--checks-passed: \"" + value + "\" is not a count";
        return std::nullopt;
      }
      o.checks_passed = static_cast<int>(n);
    } else if (arg == "--target-pid") {
      if (!(ok = need_value())) break;
      TargetPid t;
      size_t colon = value.find(':');
      unsigned long long n = 0;
      if (!parse_uint(value.substr(0, colon), 4194304, &n) || n < 2) {
        *error = "--target-pid: \"" + value + "\" is not PID or PID:START (PID >= 2)";
        return std::nullopt;
      }
      t.pid = static_cast<pid_t>(n);
      if (colon != std::string::npos) {
        unsigned long long start = 0;
        if (!parse_uint(value.substr(colon + 1), ~0ULL, &start)) {
          *error = "--target-pid: \"" + value + "\": START is not a number";
          return std::nullopt;
        }
        t.start = start;
      }
      o.target = t;
    } else if (arg == "--net-targets") {
      if (!(ok = need_value())) break;
      for (auto& item : split(value, ',')) {
        NetTarget t;
        if (!parse_target(item, &t, error)) return std::nullopt;
        if (o.net_targets.size() < 32) o.net_targets.push_back(t);
      }
    } else if (arg == "--host-loopback-port") {
      if (!(ok = need_value())) break;
      for (auto& item : split(value, ',')) {
        unsigned long long port = 0;
        if (!parse_uint(item, 65535, &port) || port == 0) {
          *error = "--host-loopback-port: \"" + item + "\" is not a port";
          return std::nullopt;
        }
        if (o.host_loopback_ports.size() < 16) o.host_loopback_ports.push_back(static_cast<uint16_t>(port));
      }
    } else if (arg == "--host-abstract") {
      if (!(ok = need_value())) break;
      if (!value.empty() && value[0] == '@') value.erase(0, 1);
      if (value.empty() || value.size() > 100) {
        *error = "--host-abstract: a name of 1..100 bytes is needed";
        return std::nullopt;
      }
      if (o.host_abstract.size() < 16) o.host_abstract.push_back(value);
    } else if (arg == "--canary") {
      if (!(ok = need_value())) break;
      if (value.empty() || value[0] != '/') {
        *error = "--canary: \"" + value + "\" is not an absolute path";
        return std::nullopt;
      }
      if (o.canaries.size() < 16) o.canaries.push_back(value);
    } else if (arg == "--timeout-ms") {
      if (!(ok = need_value())) break;
      unsigned long long n = 0;
      if (!parse_uint(value, 600000, &n) || n < 100) {
        *error = "--timeout-ms: \"" + value + "\" is not 100..600000";
        return std::nullopt;
      }
      o.timeout_ms = static_cast<int>(n);
    } else {
      *error = "unknown argument \"" + std::string(argv[i]) + "\"";
      return std::nullopt;
    }
    if (!ok) return std::nullopt;
  }
  if (!error->empty()) return std::nullopt;
  return o;
}

}  // namespace cordon::probe
