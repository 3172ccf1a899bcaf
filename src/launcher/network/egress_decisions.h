// The allowlist proxy's decisions as the receipt records them: its log is one JSON object per
// line (cordon-egress-proxy's decision_log.h); here they are counted and kept, in order.
#pragma once

#include <string>

#include "common/json_codec.h"

namespace cordon::proxy {

struct EgressDecisions {
  Json entries = Json::array();  // each line's object, as the proxy wrote it
  int allowed = 0;
  int denied = 0;      // refused by the policy (403)
  int failed = 0;      // not relayed for another reason: unresolvable, unreachable, malformed, over a bound
  int unreadable = 0;  // lines that were not a JSON object (a proxy killed mid-write)
};

// Pure.
EgressDecisions parse_decisions(const std::string& jsonl);

// The receipt's "egress" member.
Json egress_json(const EgressDecisions& d);

// Counts and the first denied destinations, terminal-safe: "1 connection(s) allowed, 2 denied
// (a.test:443, b.test:80)". What `cordon status` shows as the last allowlist session's.
std::string egress_counts_text(const EgressDecisions& d);

// The line the launcher prints at the session's end: "network allowlist: " + the counts text.
std::string egress_summary_line(const EgressDecisions& d);

}  // namespace cordon::proxy
