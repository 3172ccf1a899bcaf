// The allowlist proxy's decision log as the receipt counts it, and the stderr line.
#include "launcher/network/egress_decisions.h"

#include <gtest/gtest.h>

#include "common/build_config.h"
#include "launcher/network/proxy_process.h"

namespace cordon::proxy {
namespace {

TEST(EgressDecisions, CountsAllowedRefusedAndFailedApartAndKeepsEveryLine) {
  const std::string log =
      R"({"destination":"api.test:443","method":"CONNECT","allowed":true,"status":200,"bytes_down":10})"
      "\n"
      R"({"destination":"evil.test:443","method":"CONNECT","allowed":false,"status":403})"
      "\n"
      R"({"destination":"gone.test:80","method":"GET","allowed":false,"status":502})"
      "\n"
      R"({"destination":"half)"
      "\n"  // a proxy killed mid-write
      "\n";
  EgressDecisions d = parse_decisions(log);
  EXPECT_EQ(d.allowed, 1);
  EXPECT_EQ(d.denied, 1);
  EXPECT_EQ(d.failed, 1);
  EXPECT_EQ(d.unreadable, 1);
  ASSERT_EQ(d.entries.size(), 3u);
  Json j = egress_json(d);
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["decisions"][1]["destination"], "evil.test:443");
  EXPECT_EQ(egress_summary_line(d),
            "network allowlist: 1 connection(s) allowed, 1 denied, 1 failed (evil.test:443); "
            "to allow it, add \"evil.test:443\" to [network] allow in " +
                std::string(build::kConfigPath));
  EXPECT_EQ(egress_counts_text(d), "1 connection(s) allowed, 1 denied, 1 failed (evil.test:443)");  // for status
  // Where the operator's [network] user_allow covers the entry, the one-run way too.
  EXPECT_EQ(egress_summary_line(d, {"*.test:443"}),
            "network allowlist: 1 connection(s) allowed, 1 denied, 1 failed (evil.test:443); "
            "to allow it, add \"evil.test:443\" to [network] allow in " +
                std::string(build::kConfigPath) + ", or for one run: cordon run --network allowlist --allow evil.test:443 ...");
  EXPECT_EQ(egress_summary_line(d, {"*.other:443", "evil.test:80"}), egress_summary_line(d));
}

// A flood of denied requests (a million, each to a new name, some with names near the proxy's
// 16 KiB head bound) keeps exact counts and a receipt far below the record reader's 1 MiB.
// Before the bound every decision was kept: this receipt was ~200 MB.
TEST(EgressDecisions, AFloodKeepsExactCountsAndABoundedReceipt) {
  std::string log;
  const long long kLines = 1000000;
  log.reserve(static_cast<size_t>(kLines) * 90);
  for (long long i = 0; i < kLines; ++i) {
    std::string name = i % 1000 == 0 ? std::string(16000, 'x') : "n" + std::to_string(i) + ".flood.test:443";
    log += R"({"destination":")" + name + R"(","method":"CONNECT","allowed":false,"status":403})" + "\n";
  }
  log += R"({"destination":"api.test:443","method":"CONNECT","allowed":true,"status":200})"
         "\n";
  EgressDecisions d = parse_decisions(log);
  EXPECT_EQ(d.denied, kLines);
  EXPECT_EQ(d.allowed, 1);
  EXPECT_LE(d.entries.size(), kKeptDecisions);
  EXPECT_EQ(static_cast<long long>(d.entries.size()) + d.dropped, kLines + 1);
  EXPECT_LE(d.summary.size(), kSummaryDestinations);
  const std::string receipt = egress_json(d).dump();
  EXPECT_LT(receipt.size(), 512u * 1024) << receipt.size();
  long long summed = d.summary_dropped;
  for (const auto& [destination, counts] : d.summary) summed += counts.allowed + counts.denied + counts.failed;
  EXPECT_EQ(summed, d.dropped);
}

TEST(EgressDecisions, TheSummaryNeverWritesControlBytesToTheTerminal) {
  EgressDecisions d = parse_decisions(R"({"destination":"a\u001b]52;c;x\u0007.test:80","allowed":false,"status":403})"
                                      "\n");
  EXPECT_EQ(egress_summary_line(d).find('\x1b'), std::string::npos) << egress_summary_line(d);
}

// The log is written by another process: a line whose members have other types than the
// proxy writes is counted as unreadable, never thrown on (nlohmann's type_error) and never
// converted out of range.
TEST(EgressDecisions, AMistypedLineIsUnreadableNotAnException) {
  const std::string log = R"({"destination":"api.test:443","allowed":true,"status":200})"
                          "\n"
                          R"({"destination":"a.test:443","allowed":"yes","status":200})"
                          "\n"
                          R"({"destination":"b.test:443","allowed":false,"status":"403"})"
                          "\n"
                          R"({"destination":"c.test:443","allowed":false,"status":1e300})"
                          "\n"
                          R"({"destination":"d.test:443","allowed":false,"status":403.5})"
                          "\n"
                          R"({"destination":"e.test:443","allowed":false,"status":18446744073709551615})"
                          "\n"
                          R"({"destination":7,"allowed":false,"status":403})"
                          "\n"
                          R"({"destination":{"base64":"/w=="},"allowed":false,"status":403})"
                          "\n"
                          R"({"allowed":null})"
                          "\n"
                          R"([1,2])"
                          "\n"
                          R"("text")"
                          "\n";
  EgressDecisions d;
  ASSERT_NO_THROW(d = parse_decisions(log));
  EXPECT_EQ(d.allowed, 1);
  EXPECT_EQ(d.denied, 1);  // the base64 destination: bytes, as the proxy writes a non-UTF-8 name
  EXPECT_EQ(d.failed, 0);
  EXPECT_EQ(d.unreadable, 9);
  EXPECT_EQ(d.entries.size(), 2u);
  std::string text;
  ASSERT_NO_THROW(text = egress_counts_text(d));
  EXPECT_EQ(text, "1 connection(s) allowed, 1 denied");
}

// The proxy's own bound (egress_proxy/decision_log.h): its last line counts what it did not
// write; the totals stay exact and the destinations join the summary.
TEST(EgressDecisions, TheProxysOverflowLineAddsItsCountsToTheTotalsAndTheSummary) {
  const std::string log =
      R"({"destination":"a.test:443","method":"CONNECT","allowed":false,"status":403})"
      "\n"
      R"({"overflow":{"allowed":2,"denied":5,"failed":1,"destinations":[)"
      R"({"destination":"a.test:443","allowed":0,"denied":5,"failed":0},)"
      R"({"destination":"b.test:443","allowed":2,"denied":0,"failed":0}],"destinations_dropped":1}})"
      "\n";
  EgressDecisions d = parse_decisions(log);
  EXPECT_EQ(d.denied, 6);
  EXPECT_EQ(d.allowed, 2);
  EXPECT_EQ(d.failed, 1);
  EXPECT_EQ(d.dropped, 8);
  EXPECT_EQ(d.entries.size(), 1u);
  EXPECT_EQ(d.unreadable, 0);
  EXPECT_EQ(d.summary_dropped, 1);
  ASSERT_EQ(d.summary.size(), 2u);
  EXPECT_EQ(d.summary["a.test:443"].denied, 5);
  EXPECT_EQ(d.summary["b.test:443"].allowed, 2);
  // Another shape is unreadable and adds nothing: a mistyped count, a negative one, one past
  // the bound, or destinations that do not add up to the totals.
  for (
      const char* bad :
      {R"({"overflow":{"allowed":"2","denied":0,"failed":0,"destinations":[],"destinations_dropped":0}})",
       R"({"overflow":{"allowed":1,"denied":0,"failed":0,"destinations":[{"destination":"x","allowed":-1,"denied":0,"failed":2}],"destinations_dropped":0}})",
       R"({"overflow":{"allowed":9223372036854775807,"denied":9223372036854775807,"failed":0,"destinations":[],"destinations_dropped":0}})",
       R"({"overflow":{"allowed":3,"denied":0,"failed":0,"destinations":[{"destination":"x","allowed":1,"denied":0,"failed":0}],"destinations_dropped":0}})"}) {
    EgressDecisions b = parse_decisions(std::string(bad) + "\n");
    EXPECT_EQ(b.unreadable, 1) << bad;
    EXPECT_EQ(b.allowed + b.denied + b.failed + b.dropped, 0) << bad;
  }
}

TEST(ProxyProcess, ArgvCarriesRulesRefusalsLandlockAndExtrasAfterTheFixedDescriptors) {
  ProxyArgs args{{"api.test"}, {"*.bad.test"}, {"192.0.2.0/24"}, {"--test-allow-all"}, "required"};
  EXPECT_EQ(proxy_argv("/x/cordon-egress-proxy", args),
            (std::vector<std::string>{"/x/cordon-egress-proxy", "--listen-fd", "3", "--log-fd", "4", "--allow",
                                      "api.test", "--deny", "*.bad.test", "--refuse", "192.0.2.0/24", "--landlock",
                                      "required", "--test-allow-all"}));
  // Unset, the proxy's own Landlock domain is "auto", as the proxy's own default.
  ProxyArgs plain{{"api.test"}, {}, {}, {}};
  const std::vector<std::string> argv = proxy_argv("/x/cordon-egress-proxy", plain);
  EXPECT_EQ(std::vector<std::string>(argv.end() - 2, argv.end()), (std::vector<std::string>{"--landlock", "auto"}));
}

}  // namespace
}  // namespace cordon::proxy
