#include "egress_proxy/decision_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "common/json_codec.h"

namespace cordon::egress {
namespace {

TEST(DecisionLine, EveryFieldInOneLine) {
  Decision d{"a.test:443", "CONNECT", true, "allowed by rule \"a.test\"", "203.0.113.10", 10, 20, 5, 200, "closed"};
  std::string line = decision_line(d);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  auto doc = parse_json(line, nullptr);
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->dump(),
            R"({"destination":"a.test:443","method":"CONNECT","allowed":true,"reason":"allowed by rule \"a.test\"",)"
            R"("address":"203.0.113.10","bytes_up":10,"bytes_down":20,"duration_ms":5,"status":200,"ended":"closed"})");
}

TEST(DecisionLine, OmitsAddressAndEndedWhenNone) {
  auto doc = parse_json(decision_line({"b.test:80", "GET", false, "not in the allow-list", "", 0, 0, 1, 403, ""}),
                        nullptr);
  ASSERT_TRUE(doc);
  EXPECT_FALSE(doc->contains("address"));
  EXPECT_FALSE(doc->contains("ended"));
  EXPECT_EQ((*doc)["status"], 403);
}

TEST(DecisionLog, WritesWholeLines) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  {
    DecisionLog log(p[1]);
    log.write({"a.test:443", "CONNECT", true, "r", "", 1, 2, 3, 200, ""});
    log.write({"b.test:443", "CONNECT", false, "r", "", 0, 0, 0, 403, ""});
  }
  close(p[1]);
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = read(p[0], buf, sizeof buf)) > 0;) all.append(buf, size_t(n));
  close(p[0]);
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 2);
  EXPECT_NE(all.find("\"b.test:443\""), std::string::npos);
}

std::string read_all(int fd) {
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) all.append(buf, size_t(n));
  return all;
}

// A flood past the bound: the lines stop at it, every later decision is counted by
// destination, and finish() writes the counts once; the log never grows with the flood.
TEST(DecisionLog, PastItsBoundCountsByDestinationAndWritesTheCountsLast) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  const size_t one = decision_line({"a.test:443", "CONNECT", false, "r", "", 0, 0, 0, 403, ""}).size();
  {
    DecisionLog log(p[1], 3 * one);
    for (int i = 0; i < 10; ++i) log.write({"a.test:443", "CONNECT", false, "r", "", 0, 0, 0, 403, ""});
    log.write({"b.test:443", "CONNECT", true, "r", "", 0, 0, 0, 200, ""});
    log.write({"", "", false, "r", "", 0, 0, 0, 400, ""});
    log.finish();
    log.finish();                                                            // once
    log.write({"a.test:443", "CONNECT", false, "r", "", 0, 0, 0, 403, ""});  // after: never written
  }
  close(p[1]);
  std::string all = read_all(p[0]);
  close(p[0]);
  ASSERT_EQ(std::count(all.begin(), all.end(), '\n'), 4) << all;
  const std::string last = all.substr(3 * one);
  auto doc = parse_json(last, nullptr);
  ASSERT_TRUE(doc) << last;
  const Json& o = (*doc)["overflow"];
  EXPECT_EQ(o["denied"], 7);
  EXPECT_EQ(o["allowed"], 1);
  EXPECT_EQ(o["failed"], 1);
  EXPECT_EQ(o["destinations_dropped"], 0);
  ASSERT_EQ(o["destinations"].size(), 3U);
  EXPECT_EQ(o["destinations"][0]["destination"], "(none)");
  EXPECT_EQ(o["destinations"][1]["destination"], "a.test:443");
  EXPECT_EQ(o["destinations"][1]["denied"], 7);
}

TEST(DecisionLog, UnderItsBoundWritesNoCounts) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  {
    DecisionLog log(p[1]);
    log.write({"a.test:443", "CONNECT", true, "r", "", 1, 2, 3, 200, ""});
    log.finish();
  }
  close(p[1]);
  std::string all = read_all(p[0]);
  close(p[0]);
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 1);
  EXPECT_EQ(all.find("overflow"), std::string::npos);
}

TEST(DecisionLog, CountsAtMostTheSummaryBoundOfDestinations) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  {
    DecisionLog log(p[1], 0);
    for (size_t i = 0; i < kSummaryDestinations + 5; ++i)
      log.write({"h" + std::to_string(i) + ".test:80", "GET", false, "r", "", 0, 0, 0, 403, ""});
    log.write({std::string(1000, 'x'), "GET", false, "r", "", 0, 0, 0, 403, ""});
    log.finish();
  }
  close(p[1]);
  std::string all = read_all(p[0]);
  close(p[0]);
  auto doc = parse_json(all, nullptr);
  ASSERT_TRUE(doc) << all.substr(0, 200);
  const Json& o = (*doc)["overflow"];
  EXPECT_EQ(o["denied"], long(kSummaryDestinations + 6));
  EXPECT_EQ(o["destinations"].size(), kSummaryDestinations);
  EXPECT_EQ(o["destinations_dropped"], 6);
}

}  // namespace
}  // namespace cordon::egress
