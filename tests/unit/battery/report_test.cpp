// The battery's plain output (the stable contract) and its exit status, the FAIL count.
#include "battery/report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "battery/check.h"

namespace cordon::battery {
namespace {

CheckResult row(const std::string& id, const std::string& name, Status s, const std::string& detail = "") {
  CheckResult r;
  r.id = id;
  r.name = name;
  r.status = s;
  r.detail = detail;
  r.property = "prop";
  r.mechanism = "mech";
  return r;
}

Report two_pass_one_fail() {
  Report report;
  report.results = {row("01", "sentinel IS_SANDBOX=1", Status::Pass),
                    row("07", "own PID namespace", Status::Fail, "host PID namespace"),
                    row("27", "resource budgets in force", Status::Pass, "none configured")};
  return report;
}

TEST(BatteryReport, PassAndFailCountsGiveTheExitStatus) {
  Report report = two_pass_one_fail();
  EXPECT_EQ(report.passed(), 2);
  EXPECT_EQ(report.failed(), 1);  // main() returns this
  EXPECT_EQ(Report{}.failed(), 0);
}

TEST(BatteryReport, AWarnIsCountedApartAndNeverAsAFail) {
  Report report = two_pass_one_fail();
  report.results[2].status = Status::Warn;
  report.results[2].detail = "NOT ENFORCED here: pids_max";
  EXPECT_EQ(report.passed(), 1);
  EXPECT_EQ(report.warned(), 1);
  EXPECT_EQ(report.failed(), 1);
  const std::string plain = render_plain(report);
  EXPECT_NE(plain.find("  [WARN] 27 resource budgets in force \u2014 NOT ENFORCED here: pids_max\n"), std::string::npos)
      << plain;
  EXPECT_NE(plain.find("  Summary: 1 PASS / 1 WARN / 1 FAIL\n"), std::string::npos) << plain;
  const std::string json = render_json(report);
  EXPECT_NE(json.find("\"status\":\"WARN\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"pass\":1,\"warn\":1,\"fail\":1"), std::string::npos) << json;
}

TEST(BatteryReport, PlainRowsAndSummary) {
  EXPECT_EQ(render_plain(two_pass_one_fail()),
            "cordon-battery: 3 checks\n"
            "  [PASS] 01 sentinel IS_SANDBOX=1\n"
            "  [FAIL] 07 own PID namespace \u2014 host PID namespace\n"
            "  [PASS] 27 resource budgets in force \u2014 none configured\n"
            "  Summary: 2 PASS / 1 FAIL\n");
}

// `cordon verify` without -v: the FAIL rows, and the summary still counting every check.
TEST(BatteryReport, FailuresOnlyLeavesOutThePassRows) {
  EXPECT_EQ(render_plain(two_pass_one_fail(), true),
            "cordon-battery: 3 checks (FAIL and WARN rows only; cordon verify -v shows every row)\n"
            "  [FAIL] 07 own PID namespace \u2014 host PID namespace\n"
            "  Summary: 2 PASS / 1 FAIL\n");
  Report all_pass;
  all_pass.results = {row("01", "sentinel IS_SANDBOX=1", Status::Pass)};
  EXPECT_EQ(render_plain(all_pass, true),
            "cordon-battery: 1 checks (FAIL and WARN rows only; cordon verify -v shows every row)\n"
            "  Summary: 1 PASS / 0 FAIL\n");
}

TEST(BatteryReport, ColourWrapsOnlyTheStatusTags) {
  const std::string out = highlighted(render_plain(two_pass_one_fail()), status_colours());
  EXPECT_NE(out.find("  \033[32m[PASS]\033[0m 01 sentinel IS_SANDBOX=1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  \033[1;31m[FAIL]\033[0m 07 own PID namespace"), std::string::npos) << out;
  EXPECT_NE(out.find("  Summary: 2 PASS / 1 FAIL\n"), std::string::npos) << out;
}

// A detail echoes what a check measured (a workspace path): one row, nothing a terminal obeys.
TEST(BatteryReport, AHostileDetailStaysOneEscapedRow) {
  Report report;
  report.results.push_back({});
  report.results.back().id = "17";
  report.results.back().name = "workspace";
  report.results.back().detail = "/ws/\x1b]0;pwned\x07\n  [PASS] 99 forged\r\xc2\x9b";
  const std::string out = highlighted(render_plain(report), status_colours());
  EXPECT_NE(out.find("/ws/\\x1b]0;pwned\\x07\\x0a  [PASS] 99 forged\\x0d\\xc2\\x9b\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("\x1b]"), std::string::npos) << out;
}

TEST(BatteryReport, ListNamesEveryCheckWithPropertyAndMechanism) {
  const std::string list = render_list(all_checks());
  EXPECT_EQ(list.rfind("  01 sentinel IS_SANDBOX=1 [launcher_provenance] bwrap --setenv IS_SANDBOX 1\n", 0), 0u)
      << list;
  for (const auto& c : all_checks())
    EXPECT_NE(list.find(std::string("  ") + c.id + " " + c.name + " [" + c.property + "]"), std::string::npos) << c.id;
}

}  // namespace
}  // namespace cordon::battery
