// `cordon verify --json`: one document, whatever the helpers wrote (commands/verify_document.h).
#include "launcher/commands/verify_document.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/json_codec.h"

namespace cordon {
namespace {

const char* kBattery =
    R"({"format":"cordon-battery","battery":"cordon-battery","version":1,"checks":[],"pass":32,"fail":0})"
    "\n";
const char* kProbes = R"({"format":"cordon-probe","version":2,"result":"SANDBOX OK","exit_code":0})"
                      "\n";

Json parsed(const VerifyDocument& d) {
  EXPECT_EQ(d.text.find('\n'), d.text.size() - 1) << d.text;  // one line
  return Json::parse(d.text);
}

TEST(VerifyDocument, HoldsBothReportsAndTheVerdict) {
  VerifyDocument d = verify_document({"cordon-battery", kBattery}, HelperOutput{"cordon-probe", kProbes}, true, 0);
  Json doc = parsed(d);
  EXPECT_EQ(doc["format"], "cordon-verify");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["deep"], true);
  EXPECT_EQ(doc["battery"]["pass"], 32);
  EXPECT_EQ(doc["probes"]["result"], "SANDBOX OK");
  EXPECT_EQ(doc["verdict"], "PASS");
  EXPECT_EQ(doc["exit_code"], 0);
  EXPECT_TRUE(doc["problems"].empty());
  EXPECT_EQ(d.exit_code, kExitSuccess);
}

TEST(VerifyDocument, ProbesThatDidNotRunAreNull) {
  Json doc = parsed(verify_document({"cordon-battery", kBattery}, std::nullopt, false, kExitChecksFailed));
  EXPECT_TRUE(doc["probes"].is_null());
  EXPECT_EQ(doc["deep"], false);
  EXPECT_EQ(doc["verdict"], "FAIL");
  EXPECT_EQ(doc["exit_code"], kExitChecksFailed);
}

// What `verify --deep --json` used to print (two documents) is not one document: a helper
// that writes more than its report makes the member null and the audit incomplete, never a PASS.
TEST(VerifyDocument, OutputThatIsNotExactlyOneReportIsNullAndNeverAPass) {
  const std::string two = std::string(kBattery) + kBattery;
  VerifyDocument d = verify_document({"cordon-battery", two}, std::nullopt, false, kExitSuccess);
  Json doc = parsed(d);
  EXPECT_TRUE(doc["battery"].is_null());
  EXPECT_EQ(d.exit_code, kExitInconclusive);
  EXPECT_EQ(doc["verdict"], "INCOMPLETE");
  ASSERT_EQ(d.problems.size(), 1u);
  EXPECT_EQ(d.problems[0].rfind("cordon-battery's report is not one JSON document", 0), 0u) << d.problems[0];
  EXPECT_EQ(doc["problems"][0], d.problems[0]);

  for (const std::optional<std::string>& output :
       {std::optional<std::string>(""), std::optional<std::string>(std::nullopt),
        std::optional<std::string>(R"({"format":"cordon-probe","version":3})")}) {
    VerifyDocument p = verify_document({"cordon-battery", kBattery}, HelperOutput{"cordon-probe", output}, true,
                                       kExitSuccess);
    EXPECT_TRUE(parsed(p)["probes"].is_null()) << p.text;
    EXPECT_EQ(p.exit_code, kExitInconclusive) << p.text;
    ASSERT_EQ(p.problems.size(), 1u) << p.text;
    EXPECT_EQ(p.problems[0].rfind("cordon-probe", 0), 0u) << p.problems[0];
  }
}

// A verdict that is already not a PASS keeps its status: a FAIL stays a FAIL.
TEST(VerifyDocument, AMissingReportDoesNotSoftenAFail) {
  VerifyDocument d = verify_document({"cordon-battery", ""}, std::nullopt, false, kExitChecksFailed);
  EXPECT_EQ(d.exit_code, kExitChecksFailed);
  EXPECT_EQ(parsed(d)["verdict"], "FAIL");
  VerifyDocument refused = verify_document({"cordon-battery", ""}, std::nullopt, false, kExitLaunchRefused);
  EXPECT_EQ(refused.exit_code, kExitLaunchRefused);
  EXPECT_EQ(parsed(refused)["verdict"], "NOT VERIFIED");
}

// Whatever bytes a report carries, the document is one line of valid JSON, safe on a terminal.
TEST(VerifyDocument, AHostileDetailStaysEscaped) {
  const std::string battery = std::string(R"({"format":"cordon-battery","version":1,"checks":[{"detail":")") +
                              "\\u001b]52;c;x\\u0007\\n" + R"("}]})";
  VerifyDocument d = verify_document({"cordon-battery", battery}, std::nullopt, false, kExitSuccess);
  EXPECT_EQ(d.text.find('\x1b'), std::string::npos) << d.text;
  EXPECT_EQ(parsed(d)["battery"]["checks"][0]["detail"], "\x1b]52;c;x\x07\n");
}

}  // namespace
}  // namespace cordon
