#include "launcher/commands/status.h"

#include <algorithm>
#include <optional>

#include "common/intent_json.h"
#include "common/limit_keys.h"
#include "common/print.h"
#include "common/text.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/inputs/state_dirs.h"
#include "launcher/network/network_plan.h"

namespace cordon {
namespace {

std::string home_summary(const SessionIntent& s) {
  std::vector<std::string> entries = s.agent.home;
  for (const auto& e : s.home.keep_read_only) entries.push_back(e + " (ro)");
  if (entries.empty()) return "empty tmpfs (nothing of the host's home)";
  std::string out;
  for (const auto& e : entries) out += (out.empty() ? "" : ", ") + e;
  return out + " only";
}

std::string network_summary(const SessionIntent& s) { return network::describe_network(s.network); }

// 268435456 -> "256 MiB"; 1500 -> "1500 B".
std::string bytes_text(unsigned long long bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024 && unit < 4 && bytes % (1ULL << (10 * (unit + 1))) == 0) {
    value /= 1024;
    ++unit;
  }
  return std::to_string(static_cast<unsigned long long>(value)) + " " + units[unit];
}

// 28800 -> "8 h"; 5400 -> "90 min"; 45 -> "45 s".
std::string duration_text(unsigned long long seconds) {
  if (seconds >= 3600 && seconds % 3600 == 0) return std::to_string(seconds / 3600) + " h";
  if (seconds >= 60 && seconds % 60 == 0) return std::to_string(seconds / 60) + " min";
  return std::to_string(seconds) + " s";
}

// One session "limit" line ("pids_max=512") as a person reads it ("512 pids (cgroup)").
std::string limit_text(const std::string& entry) {
  auto eq = entry.find('=');
  if (eq == std::string::npos) return entry;
  const std::string key = entry.substr(0, eq), value = entry.substr(eq + 1);
  const std::optional<unsigned long long> number = parse_unsigned(value);  // a session file's: shown as written
  if (!number) return entry;
  const unsigned long long v = *number;
  if (key == kCoreLimit.name && v == 0) return "no core dumps";
  const LimitKey* limit = find_recorded_limit_key(key);
  if (!limit) return entry;
  const std::string quantity = limit->unit == LimitUnit::Bytes     ? bytes_text(v)
                               : limit->unit == LimitUnit::Seconds ? duration_text(v)
                                                                   : value;
  std::string text = limit->reads_as;
  return text.replace(text.find("{}"), 2, quantity);
}

std::string limits_summary(const SessionIntent& s) {
  std::string out;
  for (const auto& l : s.limits.values) out += (out.empty() ? "" : ", ") + limit_text(l);
  return out.empty() ? "none" : out;
}

// Outside a sandbox, what `cordon run` would do on this terminal; inside, what the session got.
std::string terminal_summary(const SessionIntent& s) {
  if (s.terminal.operator_device.empty()) return "no terminal: pipes stay pipes";
  if (!s.terminal.private_pty)
    return "NOT ISOLATED: the sandbox writes to the operator's terminal " + s.terminal.operator_device +
           " unfiltered (terminal.private = false)";
  std::string pass;
  for (const auto& c : s.terminal.pass) pass += (pass.empty() ? "" : ", ") + c;
  return "private pty, output filtered (passed: " + (pass.empty() ? std::string("none") : pass) + ")";
}

std::string view_summary(const SessionIntent& s) {
  if (s.filesystem.view != "system") return "WEAKER: the host's whole root, read-only";
  std::string out = "system: /usr, /etc (masked), /sys";
  for (const auto& r : s.filesystem.read) out += ", " + r;
  out += "; the rest of the host absent";
  if (!s.filesystem.private_masked.empty())
    out += "; " + std::to_string(s.filesystem.private_masked.size()) + " root-only entries of /etc masked";
  return out;
}

// "ABI 7: 14 rights; scopes: abstract_unix_socket, signal", what the kernel lacks, or why none.
std::string landlock_summary(const LandlockIntent& l) {
  if (!l.applied) return "not applied: the mounts alone hold the filesystem promise";
  std::string text = "ABI " + std::to_string(l.abi) + ", " + std::to_string(l.rights.size()) +
                     " filesystem rights; scopes: " + (l.scopes.empty() ? "none" : join(l.scopes, ", "));
  if (!l.unavailable.empty()) text += "; NOT ON THIS KERNEL: " + join(l.unavailable, ", ");
  return text;
}

}  // namespace

std::string render_status(const StatusView& v) {
  const SessionIntent& s = v.intent;
  // Each line is made terminal_safe whole: a name in it (a workspace path, a session file's
  // value) holding a newline cannot start a line of its own.
  std::string out;
  auto line = [&out](const std::string& text) { out += terminal_safe(text) + "\n"; };
  std::string first = v.inside
                          ? "cordon: inside a sandbox (agent " + s.agent.name + ")"
                          : "cordon: not in a sandbox; `cordon run` here would enforce (agent " + s.agent.name + ")";
  if (std::string label = network::network_weaker_label(s.network); !label.empty()) first += " -- " + label;
  if (!s.terminal.operator_device.empty() && !s.terminal.private_pty)
    first += " -- TERMINAL SHARED: private terminal disabled";
  if (s.filesystem.view != "system")
    first += " -- HOST VIEW: the whole host root is readable (filesystem.view = \"" + s.filesystem.view + "\")";
  if (!s.landlock.applied)
    first += " -- ONE FILESYSTEM LAYER: Landlock not applied (" +
             (s.landlock.why_not.empty() ? "sandbox.landlock = \"" + s.landlock.mode + "\"" : s.landlock.why_not) + ")";
  line(first);
  line("  view         " + view_summary(s));
  line("  landlock     " + landlock_summary(s.landlock));
  if (!s.limits.not_enforced.empty()) {
    std::string budgets = "  budgets      NOT ENFORCED here: ";
    for (size_t i = 0; i < s.limits.not_enforced.size(); ++i) budgets += (i ? ", " : "") + s.limits.not_enforced[i];
    line(budgets);
  }
  line("  workspace    " + s.workspace +
       (s.workspace_mode == "review" ? " review: an overlay; writes wait for `cordon apply` (docs/review.md)" : " rw"));
  std::string writable = "  writable     ";
  for (size_t i = 0; i < s.writable.size(); ++i) writable += (i ? ", " : "") + s.writable[i];
  line(writable);
  line("  home         " + home_summary(s));
  line("  network      " + network_summary(s));
  line("  terminal     " + terminal_summary(s));
  if (!s.agent.args.empty()) {
    std::string args;
    for (const auto& a : s.agent.args) args += (args.empty() ? "" : " ") + a;
    line("  agent        " + s.agent.name + " runs with its own sandbox off; cordon is its sandbox (" + args + ")");
  }
  line("  env          " + std::to_string(s.env_names.size()) + " names");
  line("  limits       " + limits_summary(s));
  line("  config       " + s.config.path +
       (s.config.path == s.config.fixed_path ? "" : " (NOT the fixed path " + s.config.fixed_path + ")"));
  line("  last verify  " + (s.last_verify.empty() ? std::string("never") : s.last_verify));
  if (!v.last_egress.empty()) line("  last egress  " + v.last_egress);
  return out;
}

std::string render_status_json(const StatusView& v) {
  Json document{{"format", kStatusFormat},
                {"version", kStatusVersion},
                {"inside_sandbox", v.inside},
                {"config_fixed", v.intent.config.path == v.intent.config.fixed_path},
                {"last_egress", bytes_json(v.last_egress)}};
  document.update(intent_json(v.intent));
  return dump_line(document) + "\n";
}

bool status_inside_sandbox(bool json) {
  std::string problem;
  std::string text = read_text_file(kSessionFilePath);
  if (text.empty()) return false;
  std::optional<SessionIntent> session = parse_session(text, &problem);
  if (!session) {
    // Said, not fatal: what follows is what a launch here would enforce.
    print_err(std::string("cordon: ignoring ") + kSessionFilePath + ": " + terminal_safe(problem) + "\n");
    return false;
  }
  StatusView view{true, *session, ""};
  print_out(json ? render_status_json(view) : render_status(view));
  return true;
}

int status_command(const Config& config, SessionOptions o) {
  o.command = {"/bin/true"};
  HostFacts facts = facts_for(config, o);
  StatusView view{false, plan_for(config, facts, o).intent, read_last_egress(sessions_dir(facts))};
  print_out(o.json ? render_status_json(view) : render_status(view));
  return 0;
}

}  // namespace cordon
