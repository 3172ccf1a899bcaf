// cordon-probe's options: CLI11 splits the command line, the converters below check each
// value (ids, ports, addresses, pids) and name a bad one in the probe's own words.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <CLI/CLI.hpp>
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
         "  --failures-only            the ESCAPED and INCONCLUSIVE rows and the summary, not every\n"
         "                             row (cordon verify without -v)\n"
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

namespace {

// What CLI11 collected, as the strings on the command line; converted and checked below so
// each bad value is named the way the probe always has. Value options may repeat: lists
// accumulate, single values take the last.
struct RawOptions {
  std::vector<std::string> only, net_targets, host_loopback_ports, host_abstract, canaries;
  std::string checks_passed, target_pid, timeout_ms;
};

void declare(CLI::App& app, Options& o, RawOptions& raw) {
  app.set_help_flag();  // --help is an ordinary flag: main() prints usage_text()
  app.allow_extras();   // left-overs are reported as unknown arguments, one at a time
  for (auto [name, target] :
       {std::pair{"--json", &o.json}, std::pair{"--failures-only", &o.failures_only}, std::pair{"--list", &o.list},
        std::pair{"--selftest", &o.selftest}, std::pair{"-h,--help", &o.help}, std::pair{"--version", &o.version}})
    app.add_flag(name, *target)->disable_flag_override();
  for (auto [name, target] : {std::pair{"--only", &raw.only}, std::pair{"--net-targets", &raw.net_targets},
                              std::pair{"--host-loopback-port", &raw.host_loopback_ports},
                              std::pair{"--host-abstract", &raw.host_abstract}, std::pair{"--canary", &raw.canaries}})
    app.add_option(name, *target)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  for (auto [name, target] : {std::pair{"--checks-passed", &raw.checks_passed},
                              std::pair{"--target-pid", &raw.target_pid}, std::pair{"--timeout-ms", &raw.timeout_ms}})
    app.add_option(name, *target)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

bool convert_only(const std::vector<std::string>& values, Options& o, std::string* error) {
  for (const auto& value : values)
    for (auto& id : split(value, ',')) {
      unsigned long long n = 0;
      if (!parse_uint(id, 99, &n)) {
        *error = "--only: \"" + id + "\" is not a probe id";
        return false;
      }
      o.only.push_back(n < 10 ? "0" + std::to_string(n) : std::to_string(n));
    }
  return true;
}

bool convert_checks_passed(const std::string& value, Options& o, std::string* error) {
  unsigned long long n = 0;
  if (!parse_uint(value, 10000, &n)) {
    *error = "--checks-passed: \"" + value + "\" is not a count";
    return false;
  }
  o.checks_passed = static_cast<int>(n);
  return true;
}

bool convert_target_pid(const std::string& value, Options& o, std::string* error) {
  TargetPid t;
  size_t colon = value.find(':');
  unsigned long long n = 0;
  if (!parse_uint(value.substr(0, colon), 4194304, &n) || n < 2) {
    *error = "--target-pid: \"" + value + "\" is not PID or PID:START (PID >= 2)";
    return false;
  }
  t.pid = static_cast<pid_t>(n);
  if (colon != std::string::npos) {
    unsigned long long start = 0;
    if (!parse_uint(value.substr(colon + 1), ~0ULL, &start)) {
      *error = "--target-pid: \"" + value + "\": START is not a number";
      return false;
    }
    t.start = start;
  }
  o.target = t;
  return true;
}

bool convert_net_targets(const std::vector<std::string>& values, Options& o, std::string* error) {
  for (const auto& value : values)
    for (auto& item : split(value, ',')) {
      NetTarget t;
      if (!parse_target(item, &t, error)) return false;
      if (o.net_targets.size() < 32) o.net_targets.push_back(t);
    }
  return true;
}

bool convert_loopback_ports(const std::vector<std::string>& values, Options& o, std::string* error) {
  for (const auto& value : values)
    for (auto& item : split(value, ',')) {
      unsigned long long port = 0;
      if (!parse_uint(item, 65535, &port) || port == 0) {
        *error = "--host-loopback-port: \"" + item + "\" is not a port";
        return false;
      }
      if (o.host_loopback_ports.size() < 16) o.host_loopback_ports.push_back(static_cast<uint16_t>(port));
    }
  return true;
}

bool convert_abstract(std::vector<std::string> values, Options& o, std::string* error) {
  for (auto& value : values) {
    if (!value.empty() && value[0] == '@') value.erase(0, 1);
    if (value.empty() || value.size() > 100) {
      *error = "--host-abstract: a name of 1..100 bytes is needed";
      return false;
    }
    if (o.host_abstract.size() < 16) o.host_abstract.push_back(value);
  }
  return true;
}

bool convert_canaries(const std::vector<std::string>& values, Options& o, std::string* error) {
  for (const auto& value : values) {
    if (value.empty() || value[0] != '/') {
      *error = "--canary: \"" + value + "\" is not an absolute path";
      return false;
    }
    if (o.canaries.size() < 16) o.canaries.push_back(value);
  }
  return true;
}

bool convert_timeout(const std::string& value, Options& o, std::string* error) {
  unsigned long long n = 0;
  if (!parse_uint(value, 600000, &n) || n < 100) {
    *error = "--timeout-ms: \"" + value + "\" is not 100..600000";
    return false;
  }
  o.timeout_ms = static_cast<int>(n);
  return true;
}

bool convert(const CLI::App& app, const RawOptions& raw, Options& o, std::string* error) {
  auto given = [&](const char* name) { return app.count(name) > 0; };
  return convert_only(raw.only, o, error) &&
         (!given("--checks-passed") || convert_checks_passed(raw.checks_passed, o, error)) &&
         (!given("--target-pid") || convert_target_pid(raw.target_pid, o, error)) &&
         convert_net_targets(raw.net_targets, o, error) && convert_loopback_ports(raw.host_loopback_ports, o, error) &&
         convert_abstract(raw.host_abstract, o, error) && convert_canaries(raw.canaries, o, error) &&
         (!given("--timeout-ms") || convert_timeout(raw.timeout_ms, o, error));
}

}  // namespace

std::optional<Options> parse_options(int argc, char** argv, std::string* error) {
  Options o;
  RawOptions raw;
  CLI::App app("Attempts sandbox breakouts", "cordon-probe");
  declare(app, o, raw);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    *error = e.what();
    return std::nullopt;
  }
  if (!app.remaining().empty()) {
    *error = "unknown argument \"" + app.remaining().front() + "\"";
    return std::nullopt;
  }
  if (!convert(app, raw, o, error)) return std::nullopt;
  return o;
}

}  // namespace cordon::probe
