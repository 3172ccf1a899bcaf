#include "launcher/network/egress_decisions.h"

#include <sstream>

#include "common/text.h"

namespace cordon::proxy {

EgressDecisions parse_decisions(const std::string& jsonl) {
  EgressDecisions d;
  std::istringstream lines(jsonl);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    Json entry = Json::parse(line, nullptr, false);
    if (!entry.is_object()) {
      ++d.unreadable;
      continue;
    }
    if (entry.value("allowed", false)) ++d.allowed;
    else if (entry.value("status", 0) == 403) ++d.denied;
    else ++d.failed;
    d.entries.push_back(std::move(entry));
  }
  return d;
}

Json egress_json(const EgressDecisions& d) {
  return {{"allowed", d.allowed},
          {"denied", d.denied},
          {"failed", d.failed},
          {"unreadable", d.unreadable},
          {"decisions", d.entries}};
}

std::string egress_counts_text(const EgressDecisions& d) {
  std::string line = std::to_string(d.allowed) + " connection(s) allowed, " + std::to_string(d.denied) + " denied" +
                     (d.failed ? ", " + std::to_string(d.failed) + " failed" : std::string());
  std::string denied;
  int shown = 0;
  for (const auto& e : d.entries) {
    if (e.value("allowed", false) || e.value("status", 0) != 403 || !e.contains("destination") ||
        !e["destination"].is_string())
      continue;
    if (shown++ == 3) {
      denied += ", ...";
      break;
    }
    // The destination is what the sandbox asked for: never raw bytes on the operator's terminal.
    denied += (denied.empty() ? "" : ", ") + terminal_safe(e["destination"].get<std::string>());
  }
  if (!denied.empty()) line += " (" + denied + ")";
  return line;
}

std::string egress_summary_line(const EgressDecisions& d) { return "network allowlist: " + egress_counts_text(d); }

}  // namespace cordon::proxy
