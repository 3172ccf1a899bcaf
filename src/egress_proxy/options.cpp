#include "egress_proxy/options.h"

#include "common/error.h"

namespace cordon::egress {
namespace {

constexpr int kExitUsage = 64;

[[noreturn]] void usage_error(const std::string& what) { throw Error(what, "see --help", kExitUsage); }

long long parse_number(const std::string& option, const std::string& text, long long min, long long max) {
  bool ok = !text.empty() && text.size() <= 10;
  long long value = 0;
  for (char c : text) {
    ok = ok && c >= '0' && c <= '9';
    value = value * 10 + (c - '0');
  }
  if (!ok || value < min || value > max)
    usage_error(option + ": expected a number " + std::to_string(min) + "-" + std::to_string(max) + ", got \"" + text +
                "\"");
  return value;
}

}  // namespace

std::string usage_text() {
  return "usage: cordon-egress-proxy --listen-fd N --log-fd M [--allow RULE]... [--deny RULE]...\n"
         "         [--refuse CIDR]... [--max-connections 64] [--max-header-bytes 16384]\n"
         "         [--idle-seconds 300] [--connect-timeout-seconds 10] [--header-timeout-seconds 10]\n"
         "         [--reclaim-idle-seconds 30] [--max-log-bytes 1048576] [--landlock auto|required|off]\n"
         "Serves CONNECT and absolute-form HTTP on the inherited listening socket, connecting only to\n"
         "allowed destinations; one JSON line per connection on the log fd. Before serving it enters its own\n"
         "Landlock domain (--landlock, default auto) and seccomp filter. Started by cordon.\n";
}

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& key = args[i];
    if (key == "--help" || key == "-h") {
      o.help = true;
      continue;
    }
#ifdef CORDON_TEST_HOOKS
    if (key == "--test-allow-all") {
      o.test_allow_all = true;
      continue;
    }
    if (key == "--test-no-confine") {
      o.test_no_confine = true;
      continue;
    }
    if (key == "--test-landlock-abi" && i + 1 < args.size()) {
      o.test_landlock_abi = int(parse_number(key, args[++i], 0, 999));
      continue;
    }
    if (key == "--test-probe-open" && i + 1 < args.size()) {
      o.test_probe_open = args[++i];
      continue;
    }
    if (key == "--test-probe-abstract" && i + 1 < args.size()) {
      o.test_probe_abstract = args[++i];
      continue;
    }
#endif
    if (i + 1 >= args.size()) usage_error(key.rfind("--", 0) == 0 ? key + ": missing value" : "unexpected " + key);
    const std::string& value = args[++i];
    if (key == "--listen-fd") o.listen_fd = int(parse_number(key, value, 0, 1 << 20));
    else if (key == "--log-fd") o.log_fd = int(parse_number(key, value, 0, 1 << 20));
    else if (key == "--allow") o.allow.push_back(value);
    else if (key == "--deny") o.deny.push_back(value);
    else if (key == "--max-connections") o.max_connections = int(parse_number(key, value, 1, 65536));
    else if (key == "--max-header-bytes") o.max_header_bytes = size_t(parse_number(key, value, 256, 1 << 24));
    else if (key == "--idle-seconds") o.idle_seconds = int(parse_number(key, value, 1, 604800));
    else if (key == "--connect-timeout-seconds") o.connect_timeout_seconds = int(parse_number(key, value, 1, 600));
    else if (key == "--max-log-bytes") o.max_log_bytes = size_t(parse_number(key, value, 0, 1 << 30));
    else if (key == "--header-timeout-seconds") o.header_timeout_seconds = int(parse_number(key, value, 1, 3600));
    else if (key == "--reclaim-idle-seconds") o.reclaim_idle_seconds = int(parse_number(key, value, 1, 604800));
    else if (key == "--landlock") {
      if (value == "auto") o.landlock = LandlockMode::Auto;
      else if (value == "required") o.landlock = LandlockMode::Required;
      else if (value == "off") o.landlock = LandlockMode::Off;
      else usage_error("--landlock: expected auto, required or off, got \"" + value + "\"");
    } else if (key == "--refuse") {
      std::string problem;
      auto prefix = parse_ipv4_cidr(value, &problem);
      if (!prefix) usage_error("--refuse \"" + value + "\": " + problem);
      o.refuse.push_back(*prefix);
    } else {
      usage_error("unknown option " + key);
    }
  }
  if (!o.help && (o.listen_fd < 0 || o.log_fd < 0)) usage_error("--listen-fd and --log-fd are required");
  return o;
}

}  // namespace cordon::egress
