// Output contract (docs/probes.md):
//   cordon-probe: P probes
//     [BLOCKED] NN name — evidence
//     [ESCAPED] NN name — evidence
//     [INCONCLUSIVE] NN name — why
//   Adversarial summary: B BLOCKED / E ESCAPED / I INCONCLUSIVE
//   RESULT: SANDBOX OK (C checks + P probes)            exit 0
//   RESULT: AUDIT INCOMPLETE (I inconclusive: NN name, ...)   exit 2
//   RESULT: SANDBOX LEAKING (E escaped: NN name, ...)   exit 3
// C is --checks-passed (0 when run standalone). --json carries the same content.
#pragma once

#include <string>
#include <vector>

#include "common/error.h"
#include "common/report_formats.h"
#include "probe/context.h"
#include "probe/probe.h"

namespace cordon::probe {

// Defined in common/error.h, where `cordon verify` maps them too.
inline constexpr int kExitOk = kProbeExitOk;
inline constexpr int kExitSelftestFailed = 1;  // --selftest only: never under verify
inline constexpr int kExitIncomplete = kProbeExitIncomplete;
inline constexpr int kExitLeaking = kProbeExitLeaking;
inline constexpr int kExitUsage = kProbeExitUsage;

struct Summary {
  int blocked = 0, escaped = 0, inconclusive = 0;
  int probes = 0;
  int checks = 0;
  std::string result;       // "SANDBOX OK", "AUDIT INCOMPLETE", "SANDBOX LEAKING"
  std::string result_line;  // "RESULT: ..."
  int exit_code = kExitIncomplete;
};

Summary summarize(const std::vector<ProbeResult>& results, int checks_passed);
// `failures_only` (--failures-only, `cordon verify --deep` without -v): the rows that are not
// BLOCKED alone, the header saying so; the summary and the result line are the same.
std::string render_text(const std::vector<ProbeResult>& results, const Summary& summary, bool failures_only = false);
// --json: "format" and major "version" (common/report_formats.h, docs/schemas.md).
std::string render_json(const Context& ctx, const std::vector<ProbeResult>& results, const Summary& summary);
std::string render_list(bool json);

}  // namespace cordon::probe
