#include "launcher/record/sessions.h"

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/json_codec.h"
#include "common/print.h"
#include "common/text.h"
#include "launcher/record/record_file.h"
#include "launcher/record/review_store.h"
#include "launcher/record/session_state.h"
#include "launcher/record/sweep.h"

namespace cordon {
namespace {

inline constexpr const char* kSessionsFormat = "cordon-sessions";
inline constexpr const char* kSessionFormat = "cordon-session-record";
inline constexpr int kSessionsVersion = 1;

struct SessionView {
  std::string id;
  std::string state;                   // running, ended, refused, crashed, receipt-failed, unreadable
  std::optional<long long> exit_code;  // the command's status once known
  ParsedRecord record;
  std::string problem;  // why the record or its state could not be read
  std::string review;   // review mode: "3 pending" until applied or discarded; "" otherwise
};

// What the record and its state file say, together. A state file wins while it exists: the
// receipt is appended before it is removed.
SessionView view_of(const std::string& dir, const std::string& id) {
  SessionView v;
  v.id = id;
  v.review = review::pending_summary(dir, id);
  std::optional<std::string> text = read_record(dir + "/" + id + ".json", &v.problem);
  if (text) v.record = parse_record(*text);
  ReceiptNote note;
  LiveState live = probe_live_state(dir, id, &note);
  if (live != LiveState::None && !v.record.receipt) {
    v.state = live_state_name(live);
    if (live == LiveState::ReceiptFailed) {
      v.exit_code = note.exit_code;
      v.problem = note.cause;
    }
    return v;
  }
  if (!text || !v.record.manifest) {
    v.state = "unreadable";
    if (v.problem.empty()) v.problem = "no manifest of this version";
    return v;
  }
  if (!v.record.receipt) {
    v.state = "crashed";  // no receipt and no state file: a launcher older than state files, or one that lost both
    return v;
  }
  const Json& r = *v.record.receipt;
  if (auto code = integer_member(r, "exit_code")) v.exit_code = *code;
  if (r.contains("crashed")) v.state = "crashed";
  else if (r.value("command_ran", Json(false)) == Json(false) && !r.value("launch_error", Json(nullptr)).is_null())
    v.state = "refused";
  else v.state = "ended";
  return v;
}

std::string shown_member(const SessionView& v, const char* name) {
  if (!v.record.manifest || !v.record.manifest->contains(name)) return "?";
  try {
    return terminal_safe(bytes_from_json((*v.record.manifest)[name]));
  } catch (const Error&) {
    return "?";
  }
}

// The command the session ran, its first words, cut to fit a column ("?" for a record older
// than the manifest's "command").
std::string shown_command(const SessionView& v) {
  if (!v.record.manifest || !v.record.manifest->contains("command")) return "?";
  std::string out;
  try {
    for (const auto& word : (*v.record.manifest)["command"]) out += (out.empty() ? "" : " ") + bytes_from_json(word);
  } catch (const Error&) {
    return "?";
  }
  if (out.size() > 40) out = out.substr(0, 37) + "...";
  return terminal_safe(out);
}

// How long the session ran, from its receipt: "42s", "3m07s", "2h05m"; "-" while it runs.
std::string shown_duration(const SessionView& v) {
  if (!v.record.receipt || !v.record.receipt->contains("duration_seconds") ||
      !(*v.record.receipt)["duration_seconds"].is_number())
    return "-";
  const double seconds = (*v.record.receipt)["duration_seconds"].get<double>();
  if (!(seconds >= 0) || seconds > 1e9) return "?";
  const long long s = static_cast<long long>(seconds);
  char text[32];
  if (s < 60) std::snprintf(text, sizeof text, "%llds", s);
  else if (s < 3600) std::snprintf(text, sizeof text, "%lldm%02llds", s / 60, s % 60);
  else std::snprintf(text, sizeof text, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
  return text;
}

Json json_of(const SessionView& v) {
  auto member = [&](const char* name) {
    return v.record.manifest && v.record.manifest->contains(name) ? (*v.record.manifest)[name] : Json(nullptr);
  };
  const Json exit_code = v.exit_code ? Json(*v.exit_code) : Json(nullptr);
  return {{"session", v.id},
          {"state", v.state},
          {"exit_code", exit_code},
          {"started", member("started")},
          {"agent", member("agent")},
          {"workspace", member("workspace")},
          {"problem", v.problem.empty() ? Json(nullptr) : bytes_json(v.problem)},
          {"review", v.review.empty() ? Json(nullptr) : Json(v.review)}};
}

}  // namespace

int print_sessions_list(const std::string& dir, bool json) {
  std::vector<std::string> ids = session_ids(dir, ".json");
  if (json) {
    Json sessions = Json::array();
    for (const auto& id : ids) sessions.push_back(json_of(view_of(dir, id)));
    Json doc{
        {"format", kSessionsFormat}, {"version", kSessionsVersion}, {"dir", bytes_json(dir)}, {"sessions", sessions}};
    print_out(dump_line(doc) + "\n");
    return 0;
  }
  if (ids.empty()) {
    print_out("no sessions recorded in " + terminal_safe(dir) + "\n");
    return 0;
  }
  // EXIT is the command's own status (cordon verify maps the battery's and the probe's to its own).
  printf_out("%-26s %-20s %-8s %-14s %-6s %-10s %-12s %-40s %s\n", "SESSION", "STARTED", "TOOK", "STATE", "EXIT",
             "AGENT", "REVIEW", "COMMAND", "WORKSPACE");
  for (const auto& id : ids) {
    SessionView v = view_of(dir, id);
    std::string exit = v.exit_code ? std::to_string(*v.exit_code) : "-";
    printf_out("%-26s %-20s %-8s %-14s %-6s %-10s %-12s %-40s %s\n", terminal_safe(id).c_str(),
               shown_member(v, "started").c_str(), shown_duration(v).c_str(), v.state.c_str(), exit.c_str(),
               shown_member(v, "agent").c_str(), v.review.empty() ? "-" : v.review.c_str(), shown_command(v).c_str(),
               shown_member(v, "workspace").c_str());
  }
  return 0;
}

int print_session(const std::string& dir, const std::string& id) {
  require_session_id(id);
  SessionView v = view_of(dir, id);
  if (v.state == "unreadable" && !v.record.manifest && probe_live_state(dir, id) == LiveState::None)
    throw Error("no readable session " + id + " in " + terminal_safe(dir) + (v.problem.empty() ? "" : ": " + v.problem),
                "use an id from `cordon sessions list`", kExitConfigError);
  Json doc{{"format", kSessionFormat},
           {"version", kSessionsVersion},
           {"session", id},
           {"state", v.state},
           {"manifest", v.record.manifest ? *v.record.manifest : Json(nullptr)},
           {"receipt", v.record.receipt ? *v.record.receipt : Json(nullptr)}};
  // Indented for a person at a terminal; one line for a pipe (schemas.md).
  print_out((::isatty(1) ? dump_pretty(doc) : dump_line(doc)) + "\n");
  return 0;
}

int run_sessions_gc(const std::string& dir, const RecordExport& exporter) {
  SweepReport report = sweep_crashed_sessions(dir, &exporter);
  for (const auto& line : report.lines) print_out(terminal_safe(line) + "\n");
  print_out("swept " + std::to_string(report.swept) + " crashed session(s) in " + terminal_safe(dir) +
            (report.problems ? ", " + std::to_string(report.problems) + " problem(s) left (above)" : "") + "\n");
  return report.problems ? kExitLaunchRefused : 0;  // leftovers it could not remove (named above)
}

int run_sessions_prune(const std::string& dir, long long keep, long long keep_days) {
  std::vector<std::string> kept;
  std::vector<std::string> removed = prune_records(dir, keep, keep_days, &kept);
  for (const auto& id : removed) print_out("removed " + terminal_safe(id) + "\n");
  for (const auto& id : kept)
    print_out("kept " + terminal_safe(id) + ": its review is pending (cordon apply or cordon discard --session " +
              terminal_safe(id) + ")\n");
  printf_out("pruned %zu record(s) in %s (keep %lld, keep_days %lld)\n", removed.size(), terminal_safe(dir).c_str(),
             keep, keep_days);
  return 0;
}

}  // namespace cordon
