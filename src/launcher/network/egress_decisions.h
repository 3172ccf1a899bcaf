// The allowlist proxy's decisions as the receipt records them: its log is one JSON object per
// line (cordon-egress-proxy's decision_log.h); here they are counted and kept, in order.
#pragma once

#include <map>
#include <string>

#include "common/decision_bounds.h"
#include "common/json_codec.h"

namespace cordon::proxy {

// What the sandbox does decides how many decisions there are (a flood of denied requests), so
// the receipt keeps them bounded: the counts are always exact; the first decisions are kept
// whole up to kKeptDecisions and kKeptDecisionBytes; the rest are summed up by destination, for
// at most kSummaryDestinations destinations (common/decision_bounds.h), and counted as dropped.
// The proxy bounds its own log the same way: past kDecisionLogBytes its last line carries the
// counts of the decisions it did not write ({"overflow": ...}), added here. A record
// therefore stays far below the record reader's bound (record/record_file.h kMaxRecordBytes, 1 MiB).
inline constexpr size_t kKeptDecisions = 200;
inline constexpr size_t kKeptDecisionBytes = size_t{256} * 1024;

struct DestinationSummary {
  long long allowed = 0, denied = 0, failed = 0;
};

struct EgressDecisions {
  Json entries = Json::array();  // the first decisions, each line's object as the proxy wrote it
  long long allowed = 0;
  long long denied = 0;      // refused by the policy (403)
  long long failed = 0;      // not relayed for another reason: unresolvable, unreachable, malformed, over a bound
  long long unreadable = 0;  // lines that were not a decision (a proxy killed mid-write; a member of another type)
  long long dropped = 0;     // decisions not kept in `entries` (summed up in `summary`)
  std::map<std::string, DestinationSummary> summary;  // the dropped ones, by destination
  long long summary_dropped = 0;                      // dropped decisions whose destination did not fit in `summary`
  size_t kept_bytes = 0;                              // the size of `entries` as JSON
  long long overflow_lines = 0;                       // the proxy's overflow lines read (decision_log.h)
  long long overflow_counted = 0;                     // the decisions those lines counted (in the totals above)
};

// Pure; never throws: a line that is not JSON, or whose members have other types than the
// proxy writes, is counted as unreadable.
EgressDecisions parse_decisions(const std::string& jsonl);

// The receipt's "egress" member.
Json egress_json(const EgressDecisions& d);

// Counts and the first denied destinations, terminal-safe: "1 connection(s) allowed, 2 denied
// (a.test:443, b.test:80)". What `cordon status` shows as the last allowlist session's.
std::string egress_counts_text(const EgressDecisions& d);

// The line the launcher prints at the session's end: "network allowlist: " + the counts text,
// and for the first denied destination the entry that allows it and the file it goes in; when
// that entry lies within one of `user_allow` ([network] user_allow), also the one-run way:
// `cordon run --allow ENTRY ...`.
std::string egress_summary_line(const EgressDecisions& d, const std::vector<std::string>& user_allow = {});

}  // namespace cordon::proxy
