// The battery's two output forms: plain rows (the stable contract) and one JSON object.
#pragma once

#include <string>
#include <vector>

#include "battery/check.h"

namespace cordon::battery {

struct Report {
  std::vector<CheckResult> results;
  std::string profile;       // "" = unknown (no session file)
  std::string session_file;  // "" = none
  int passed() const;
  int failed() const;
};

// "cordon-battery: N checks", one row per check, "  Summary: P PASS / F FAIL".
// `colour` wraps the status tags in ANSI colours (only for a terminal).
std::string render_plain(const Report& report, bool colour);

// {"format":"cordon-battery","battery":"cordon-battery","version":1,"profile":..,"session_file":..,"checks":[..],"pass":P,"fail":F}
std::string render_json(const Report& report);

// "  01 sentinel IS_SANDBOX=1 [launcher_provenance]" per check.
std::string render_list(const std::vector<CheckSpec>& checks);

}  // namespace cordon::battery
