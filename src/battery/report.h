// The battery's two output forms: plain rows (the stable contract) and one JSON object.
#pragma once

#include <string>
#include <vector>

#include "battery/check.h"
#include "common/print.h"

namespace cordon::battery {

struct Report {
  std::vector<CheckResult> results;
  std::string profile;       // "" = unknown (no session file)
  std::string session_file;  // "" = none
  int passed() const;
  int warned() const;
  int failed() const;
};

// "cordon-battery: N checks", one row per check, "  Summary: P PASS / F FAIL" (with
// " / W WARN" after the PASS count when a check warned).
// Uncoloured: on a terminal the printer colours the status tags (status_colours).
// `failures_only` (--failures-only, `cordon verify` without -v): the FAIL rows alone, the
// header saying so; a person reads what needs fixing, and the summary still counts every check.
std::string render_plain(const Report& report, bool failures_only = false);

// The status tags' colours on a terminal (common/print.h adds them after escaping the rest).
const std::vector<Highlight>& status_colours();

// {"format":"cordon-battery","battery":"cordon-battery","version":1,"profile":..,"session_file":..,"checks":[..],"pass":P,"warn":W,"fail":F}
std::string render_json(const Report& report);

// "  01 sentinel IS_SANDBOX=1 [launcher_provenance]" per check.
std::string render_list(const std::vector<CheckSpec>& checks);

}  // namespace cordon::battery
