#include "launcher/network/egress_decisions.h"

#include <optional>
#include <sstream>
#include <vector>

#include "common/build_config.h"
#include "common/egress_rules.h"
#include "common/error.h"
#include "common/text.h"

namespace cordon::proxy {
namespace {

// A line as cordon-egress-proxy writes it (egress_proxy/decision_log.h): "allowed" a boolean,
// "status" an HTTP status (0: none), "destination" bytes. The log is another process's
// output: any other shape is unreadable, and nothing of it is read unchecked.
bool is_decision(const Json& entry) {
  if (!entry.is_object() || !entry.contains("allowed") || !entry["allowed"].is_boolean()) return false;
  const std::optional<long long> status = integer_member(entry, "status");
  if (!status || *status < 0 || *status > 999 || !entry.contains("destination")) return false;
  try {
    bytes_from_json(entry["destination"]);
  } catch (const Error&) {
    return false;
  }
  return true;
}

bool is_denied(const Json& decision) {
  return !decision["allowed"].get<bool>() && integer_member(decision, "status") == 403;
}

long long count_member(const Json& object, const char* name) {
  const std::optional<long long> n = integer_member(object, name);
  return n && *n >= 0 ? *n : -1;
}

DestinationSummary* summary_slot(EgressDecisions& d, std::string destination) {
  if (destination.size() > kSummaryDestinationBytes)
    destination = destination.substr(0, kSummaryDestinationBytes) + "...";
  auto it = d.summary.find(destination);
  if (it != d.summary.end()) return &it->second;
  if (d.summary.size() >= kSummaryDestinations) return nullptr;
  return &d.summary.emplace(destination, DestinationSummary{}).first->second;
}

// Kept whole while the bounds allow, else summed up by destination (header.h's bounds).
void keep_or_sum(EgressDecisions& d, Json entry, size_t line_bytes) {
  if (d.entries.size() < kKeptDecisions && d.kept_bytes + line_bytes <= kKeptDecisionBytes) {
    d.kept_bytes += line_bytes;
    d.entries.push_back(std::move(entry));
    return;
  }
  ++d.dropped;
  DestinationSummary* slot = summary_slot(d, entry.contains("destination") && entry["destination"].is_string()
                                                 ? entry["destination"].get<std::string>()
                                                 : std::string("(none)"));
  if (slot == nullptr) {
    ++d.summary_dropped;
    return;
  }
  if (entry.value("allowed", false)) ++slot->allowed;
  else if (entry.value("status", 0) == 403) ++slot->denied;
  else ++slot->failed;
}

// The proxy's last line past its own bound (egress_proxy/decision_log.h): the counts of the
// decisions it did not write, added to the totals and the summary. False, and nothing added,
// for any other shape: counts that are not integers in [0, kMaxOverflowCount], or destinations
// whose counts do not add up to the totals (the receipt's counts must stay exact).
constexpr long long kMaxOverflowCount = 1LL << 50;

struct OverflowDestination {
  std::string name;
  DestinationSummary counts;
};

long long bounded_count(const Json& object, const char* name) {
  const long long n = count_member(object, name);
  return n > kMaxOverflowCount ? -1 : n;
}

std::optional<std::vector<OverflowDestination>> overflow_destinations(const Json& list) {
  std::vector<OverflowDestination> out;
  for (const Json& entry : list) {
    OverflowDestination d;
    d.counts = {bounded_count(entry, "allowed"), bounded_count(entry, "denied"), bounded_count(entry, "failed")};
    if (d.counts.allowed < 0 || d.counts.denied < 0 || d.counts.failed < 0 || !entry.contains("destination"))
      return std::nullopt;
    try {
      d.name = bytes_from_json(entry["destination"]);
    } catch (const Error&) {
      return std::nullopt;
    }
    out.push_back(std::move(d));
  }
  return out;
}

bool add_overflow(EgressDecisions& d, const Json& line) {
  if (!line.is_object() || line.size() != 1 || !line.contains("overflow")) return false;
  const Json& o = line["overflow"];
  if (!o.is_object() || !o.contains("destinations") || !o["destinations"].is_array() ||
      o["destinations"].size() > kSummaryDestinations)
    return false;
  const long long allowed = bounded_count(o, "allowed"), denied = bounded_count(o, "denied");
  const long long failed = bounded_count(o, "failed"), unnamed = bounded_count(o, "destinations_dropped");
  if (allowed < 0 || denied < 0 || failed < 0 || unnamed < 0) return false;
  std::optional<std::vector<OverflowDestination>> destinations = overflow_destinations(o["destinations"]);
  if (!destinations) return false;
  long long named = 0;
  for (const auto& dest : *destinations) named += dest.counts.allowed + dest.counts.denied + dest.counts.failed;
  if (named + unnamed != allowed + denied + failed) return false;
  d.allowed += allowed;
  d.denied += denied;
  d.failed += failed;
  d.dropped += allowed + denied + failed;
  d.summary_dropped += unnamed;
  ++d.overflow_lines;
  d.overflow_counted += allowed + denied + failed;
  for (const auto& dest : *destinations) {
    DestinationSummary* slot = summary_slot(d, dest.name);
    if (slot == nullptr) {
      d.summary_dropped += dest.counts.allowed + dest.counts.denied + dest.counts.failed;
      continue;
    }
    slot->allowed += dest.counts.allowed;
    slot->denied += dest.counts.denied;
    slot->failed += dest.counts.failed;
  }
  return true;
}

}  // namespace

EgressDecisions parse_decisions(const std::string& jsonl) {
  EgressDecisions d;
  std::istringstream lines(jsonl);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    std::optional<Json> entry = parse_json(line, nullptr);
    if (entry && add_overflow(d, *entry)) continue;
    if (!entry || !is_decision(*entry)) {
      ++d.unreadable;
      continue;
    }
    if ((*entry)["allowed"].get<bool>()) ++d.allowed;
    else if (is_denied(*entry)) ++d.denied;
    else ++d.failed;
    keep_or_sum(d, std::move(*entry), line.size());
  }
  return d;
}

Json egress_json(const EgressDecisions& d) {
  Json summary = Json::array();
  for (const auto& [destination, counts] : d.summary)
    summary.push_back({{"destination", bytes_json(destination)},
                       {"allowed", counts.allowed},
                       {"denied", counts.denied},
                       {"failed", counts.failed}});
  return {{"allowed", d.allowed},
          {"denied", d.denied},
          {"failed", d.failed},
          {"unreadable", d.unreadable},
          {"decisions", d.entries},
          {"dropped", d.dropped},
          {"dropped_by_destination", summary},
          {"dropped_unsummarized", d.summary_dropped}};
}

std::string egress_counts_text(const EgressDecisions& d) {
  std::string line = std::to_string(d.allowed) + " connection(s) allowed, " + std::to_string(d.denied) + " denied" +
                     (d.failed ? ", " + std::to_string(d.failed) + " failed" : std::string());
  std::string denied;
  int shown = 0;
  for (const auto& e : d.entries) {
    if (!is_decision(e) || !is_denied(e) || !e["destination"].is_string()) continue;
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

namespace {

// Whether `entry` parses as an allow rule within one of `patterns` (none parse: no).
bool within_user_allow(const std::string& entry, const std::vector<std::string>& patterns) {
  try {
    const EgressRule rule = parse_egress_rule(entry, "--allow");
    for (const auto& p : patterns)
      if (rule_within(rule, parse_egress_rule(p, "[network] user_allow"))) return true;
  } catch (const Error&) {
  }
  return false;
}

}  // namespace

std::string egress_summary_line(const EgressDecisions& d, const std::vector<std::string>& user_allow) {
  std::string line = "network allowlist: " + egress_counts_text(d);
  // The way forward for the first denied destination: the exact entry and where it goes (a
  // CONNECT client, such as npm over HTTPS, never sees the proxy's 403 body that says so).
  for (const auto& e : d.entries) {
    if (!is_decision(e) || !is_denied(e) || !e["destination"].is_string()) continue;
    const std::string destination = e["destination"].get<std::string>();
    line += "; to allow it, add \"" + terminal_safe(destination) + "\" to [network] allow in " + build::kConfigPath;
    if (within_user_allow(destination, user_allow))
      line += ", or for one run: cordon run --network allowlist --allow " + terminal_safe(destination) + " ...";
    break;
  }
  return line;
}

}  // namespace cordon::proxy
