#include "probe/report.h"

#include <cmath>
#include <cstdio>

#include "common/build_config.h"
#include "common/json_codec.h"
#include "common/text.h"

namespace cordon::probe {
namespace {

std::string names_of(const std::vector<ProbeResult>& results, Verdict v) {
  std::string out;
  int shown = 0, total = 0;
  for (const auto& r : results) {
    if (r.verdict != v) continue;
    ++total;
    if (shown < 8) {
      out += (shown ? ", " : "") + r.id + " " + r.name;
      ++shown;
    }
  }
  if (total > shown) out += ", +" + std::to_string(total - shown) + " more";
  return out;
}

// Milliseconds to one decimal, as the text report shows them.
double tenths(double v) { return std::round(v * 10) / 10; }

}  // namespace

Summary summarize(const std::vector<ProbeResult>& results, int checks_passed) {
  Summary s;
  s.checks = checks_passed;
  s.probes = static_cast<int>(results.size());
  for (const auto& r : results) {
    if (r.verdict == Verdict::Blocked) ++s.blocked;
    else if (r.verdict == Verdict::Escaped) ++s.escaped;
    else ++s.inconclusive;
  }
  if (s.escaped) {
    s.result = "SANDBOX LEAKING";
    s.result_line = "RESULT: SANDBOX LEAKING (" + std::to_string(s.escaped) +
                    " escaped: " + names_of(results, Verdict::Escaped) + ")";
    s.exit_code = kExitLeaking;
  } else if (s.inconclusive || s.probes == 0) {
    s.result = "AUDIT INCOMPLETE";
    s.result_line = "RESULT: AUDIT INCOMPLETE (" +
                    (s.probes == 0 ? std::string("no probe ran")
                                   : std::to_string(s.inconclusive) +
                                         " inconclusive: " + names_of(results, Verdict::Inconclusive)) +
                    ")";
    s.exit_code = kExitIncomplete;
  } else {
    s.result = "SANDBOX OK";
    s.result_line = "RESULT: SANDBOX OK (" + std::to_string(s.checks) + " checks + " + std::to_string(s.probes) +
                    " probes)";
    s.exit_code = kExitOk;
  }
  return s;
}

std::string render_text(const std::vector<ProbeResult>& results, const Summary& s, bool failures_only) {
  std::string out = "cordon-probe: " + std::to_string(results.size()) + " probes" +
                    (failures_only ? " (ESCAPED and INCONCLUSIVE rows only; cordon verify -v shows every row)" : "") +
                    "\n";
  for (const auto& r : results) {
    if (failures_only && r.verdict == Verdict::Blocked) continue;
    // Evidence echoes what a probe met (paths, names): each row stays one line.
    out += std::string("  [") + verdict_word(r.verdict) + "] " + r.id + " " + r.name + " \u2014 " +
           terminal_safe(r.evidence) + "\n";
  }
  out += "Adversarial summary: " + std::to_string(s.blocked) + " BLOCKED / " + std::to_string(s.escaped) +
         " ESCAPED / " + std::to_string(s.inconclusive) + " INCONCLUSIVE\n";
  out += s.result_line + "\n";
  return out;
}

namespace {

Json probe_json(const ProbeResult& r) {
  return {{"id", bytes_json(r.id)},
          {"name", bytes_json(r.name)},
          {"family", bytes_json(r.family)},
          {"verdict", verdict_word(r.verdict)},
          {"evidence", bytes_json(r.evidence)},
          {"duration_ms", tenths(r.duration_ms)}};
}

Json inputs_json(const Context& ctx) {
  std::vector<std::string> targets;
  for (const auto& t : ctx.options.net_targets) targets.push_back(t.text());
  Json ports = Json::array();
  for (auto p : ctx.options.host_loopback_ports) ports.push_back(p);
  return {{"target_pid", ctx.options.target ? Json(ctx.options.target->pid) : Json(nullptr)},
          {"net_targets", bytes_array_json(targets)},
          {"host_loopback_ports", ports},
          {"host_abstract", bytes_array_json(ctx.options.host_abstract)},
          {"canaries", bytes_array_json(ctx.options.canaries)}};
}

}  // namespace

std::string render_json(const Context& ctx, const std::vector<ProbeResult>& results, const Summary& s) {
  Json probes = Json::array();
  for (const auto& r : results) probes.push_back(probe_json(r));
  Json document{{"format", kProbeFormat},
                {"version", kProbeVersion},
                {"tool", "cordon-probe"},
                {"cordon_version", build::kVersion},
                {"in_cordon_session", ctx.session.has_value()},
                {"uid", ctx.uid},
                {"inputs", inputs_json(ctx)},
                {"probes", probes},
                {"summary",
                 {{"probes", s.probes},
                  {"blocked", s.blocked},
                  {"escaped", s.escaped},
                  {"inconclusive", s.inconclusive},
                  {"checks_passed", s.checks}}},
                {"result", bytes_json(s.result)},
                {"result_line", bytes_json(s.result_line)},
                {"exit_code", s.exit_code}};
  return dump_line(document) + "\n";
}

std::string render_list(bool json) {
  std::string out;
  if (json) {
    Json probes = Json::array();
    for (const auto& p : all_probes())
      probes.push_back({{"id", p.id},
                        {"name", p.name},
                        {"family", p.family},
                        {"attempts", bytes_json(p.attempts)},
                        {"blocked_when", bytes_json(p.blocked)}});
    Json document{{"format", "cordon-probe-list"}, {"version", 1}, {"probes", probes}};
    return dump_line(document) + "\n";
  }
  for (const auto& p : all_probes()) {
    char line[128];
    std::snprintf(line, sizeof line, "%s %-12s %-26s ", p.id, p.family, p.name);
    out += std::string(line) + p.attempts + "\n";
  }
  return out;
}

}  // namespace cordon::probe
