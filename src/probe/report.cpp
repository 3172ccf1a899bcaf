#include "probe/report.h"

#include <cstdio>

#include "common/build_config.h"
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

std::string fixed(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

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
    s.result_line = "RESULT: SANDBOX LEAKING (" + std::to_string(s.escaped) + " escaped: " +
                    names_of(results, Verdict::Escaped) + ")";
    s.exit_code = kExitLeaking;
  } else if (s.inconclusive || s.probes == 0) {
    s.result = "AUDIT INCOMPLETE";
    s.result_line = "RESULT: AUDIT INCOMPLETE (" +
                    (s.probes == 0 ? std::string("no probe ran")
                                   : std::to_string(s.inconclusive) + " inconclusive: " +
                                         names_of(results, Verdict::Inconclusive)) +
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

std::string render_text(const std::vector<ProbeResult>& results, const Summary& s) {
  std::string out = "cordon-probe: " + std::to_string(results.size()) + " probes\n";
  for (const auto& r : results)
    out += std::string("  [") + verdict_word(r.verdict) + "] " + r.id + " " + r.name + " \u2014 " + r.evidence + "\n";
  out += "Adversarial summary: " + std::to_string(s.blocked) + " BLOCKED / " + std::to_string(s.escaped) +
         " ESCAPED / " + std::to_string(s.inconclusive) + " INCONCLUSIVE\n";
  out += s.result_line + "\n";
  return out;
}

std::string render_json(const Context& ctx, const std::vector<ProbeResult>& results, const Summary& s) {
  std::string probes;
  for (const auto& r : results) {
    if (!probes.empty()) probes += ",";
    probes += "{\"id\":" + json_string(r.id) + ",\"name\":" + json_string(r.name) + ",\"family\":" +
              json_string(r.family) + ",\"verdict\":" + json_string(verdict_word(r.verdict)) +
              ",\"evidence\":" + json_string(r.evidence) + ",\"duration_ms\":" + fixed(r.duration_ms) + "}";
  }
  std::vector<std::string> targets, ports, canaries;
  for (const auto& t : ctx.options.net_targets) targets.push_back(t.text());
  for (auto p : ctx.options.host_loopback_ports) ports.push_back(std::to_string(p));
  std::string target_pid = "null";
  if (ctx.options.target) target_pid = std::to_string(ctx.options.target->pid);
  std::string out = "{\"tool\":\"cordon-probe\",\"format\":1,\"version\":" + json_string(build::kVersion) +
                    ",\"in_cordon_session\":" + (ctx.session ? "true" : "false") + ",\"uid\":" +
                    std::to_string(ctx.uid) + ",\"inputs\":{\"target_pid\":" + target_pid +
                    ",\"net_targets\":" + json_string_array(targets) + ",\"host_loopback_ports\":[" +
                    [&] {
                      std::string list;
                      for (size_t i = 0; i < ports.size(); ++i) list += (i ? "," : "") + ports[i];
                      return list;
                    }() +
                    "],\"host_abstract\":" + json_string_array(ctx.options.host_abstract) +
                    ",\"canaries\":" + json_string_array(ctx.options.canaries) + "},\"probes\":[" + probes +
                    "],\"summary\":{\"probes\":" + std::to_string(s.probes) + ",\"blocked\":" +
                    std::to_string(s.blocked) + ",\"escaped\":" + std::to_string(s.escaped) +
                    ",\"inconclusive\":" + std::to_string(s.inconclusive) + ",\"checks_passed\":" +
                    std::to_string(s.checks) + "},\"result\":" + json_string(s.result) +
                    ",\"result_line\":" + json_string(s.result_line) + ",\"exit_code\":" +
                    std::to_string(s.exit_code) + "}\n";
  return out;
}

std::string render_list(bool json) {
  std::string out;
  if (json) {
    out = "{\"probes\":[";
    bool first = true;
    for (const auto& p : all_probes()) {
      out += std::string(first ? "" : ",") + "{\"id\":" + json_string(p.id) + ",\"name\":" + json_string(p.name) +
             ",\"family\":" + json_string(p.family) + ",\"attempts\":" + json_string(p.attempts) +
             ",\"blocked_when\":" + json_string(p.blocked) + "}";
      first = false;
    }
    return out + "]}\n";
  }
  for (const auto& p : all_probes()) {
    char line[128];
    std::snprintf(line, sizeof line, "%s %-12s %-26s ", p.id, p.family, p.name);
    out += std::string(line) + p.attempts + "\n";
  }
  return out;
}

}  // namespace cordon::probe
