// The probe's result contract (docs/probes.md): the summary line, the RESULT line and the
// exit status follow from the verdicts alone.
#include "probe/report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "probe/probe.h"

namespace cordon::probe {
namespace {

ProbeResult result(const std::string& id, const std::string& name, Verdict v, const std::string& evidence = "e") {
  return ProbeResult{id, name, "egress", v, evidence, 1.0};
}

TEST(ProbeSummary, EveryProbeBlockedIsSandboxOk) {
  Summary s = summarize({result("01", "a", Verdict::Blocked), result("02", "b", Verdict::Blocked)}, 27);
  EXPECT_EQ(s.blocked, 2);
  EXPECT_EQ(s.exit_code, kExitOk);
  EXPECT_EQ(s.result, "SANDBOX OK");
  EXPECT_EQ(s.result_line, "RESULT: SANDBOX OK (27 checks + 2 probes)");
}

TEST(ProbeSummary, AnInconclusiveProbeMakesTheAuditIncomplete) {
  Summary s = summarize({result("01", "a", Verdict::Blocked), result("60", "proc-signal", Verdict::Inconclusive)}, 0);
  EXPECT_EQ(s.exit_code, kExitIncomplete);
  EXPECT_EQ(s.result_line, "RESULT: AUDIT INCOMPLETE (1 inconclusive: 60 proc-signal)");
}

TEST(ProbeSummary, NoProbeRunIsIncompleteNeverOk) {
  Summary s = summarize({}, 27);
  EXPECT_EQ(s.exit_code, kExitIncomplete);
  EXPECT_EQ(s.result_line, "RESULT: AUDIT INCOMPLETE (no probe ran)");
}

TEST(ProbeSummary, AnyEscapeIsLeakingWhateverElseHappened) {
  Summary s = summarize({result("01", "a", Verdict::Inconclusive), result("02", "b", Verdict::Escaped),
                         result("03", "c", Verdict::Escaped)},
                        27);
  EXPECT_EQ(s.exit_code, kExitLeaking);
  EXPECT_EQ(s.escaped, 2);
  EXPECT_EQ(s.inconclusive, 1);
  EXPECT_EQ(s.result_line, "RESULT: SANDBOX LEAKING (2 escaped: 02 b, 03 c)");
}

TEST(ProbeSummary, LongListsOfNamesAreCut) {
  std::vector<ProbeResult> results;
  for (int i = 10; i < 20; ++i) results.push_back(result(std::to_string(i), "p", Verdict::Escaped));
  Summary s = summarize(results, 0);
  EXPECT_NE(s.result_line.find("17 p, +2 more)"), std::string::npos) << s.result_line;
  EXPECT_EQ(s.result_line.find("18 p"), std::string::npos) << s.result_line;
}

TEST(ProbeRenderText, RowsThenSummaryThenResult) {
  std::vector<ProbeResult> results = {result("44", "priv-chroot", Verdict::Blocked, "chroot: EPERM"),
                                      result("60", "proc-signal", Verdict::Inconclusive, "no target")};
  Summary s = summarize(results, 3);
  EXPECT_EQ(render_text(results, s),
            "cordon-probe: 2 probes\n"
            "  [BLOCKED] 44 priv-chroot \u2014 chroot: EPERM\n"
            "  [INCONCLUSIVE] 60 proc-signal \u2014 no target\n"
            "Adversarial summary: 1 BLOCKED / 0 ESCAPED / 1 INCONCLUSIVE\n"
            "RESULT: AUDIT INCOMPLETE (1 inconclusive: 60 proc-signal)\n");
}

// `cordon verify --deep` without -v: what needs a look, and the same summary and result.
TEST(ProbeRenderText, FailuresOnlyLeavesOutTheBlockedRows) {
  std::vector<ProbeResult> results = {result("44", "priv-chroot", Verdict::Blocked, "chroot: EPERM"),
                                      result("45", "priv-mount", Verdict::Escaped, "mounted"),
                                      result("60", "proc-signal", Verdict::Inconclusive, "no target")};
  Summary s = summarize(results, 3);
  EXPECT_EQ(render_text(results, s, true),
            "cordon-probe: 3 probes (ESCAPED and INCONCLUSIVE rows only; cordon verify -v shows every row)\n"
            "  [ESCAPED] 45 priv-mount \u2014 mounted\n"
            "  [INCONCLUSIVE] 60 proc-signal \u2014 no target\n"
            "Adversarial summary: 1 BLOCKED / 1 ESCAPED / 1 INCONCLUSIVE\n"
            "RESULT: SANDBOX LEAKING (1 escaped: 45 priv-mount)\n");
}

TEST(ProbeRenderList, OneLinePerProbeStartingWithItsIdAndFamily) {
  const std::string list = render_list(false);
  size_t lines = 0;
  for (size_t at = 0; (at = list.find('\n', at)) != std::string::npos; ++at) ++lines;
  EXPECT_EQ(lines, all_probes().size());
  for (const auto& p : all_probes())
    EXPECT_NE(list.find(std::string(p.id) + " " + p.family), std::string::npos) << p.id;
}

}  // namespace
}  // namespace cordon::probe
