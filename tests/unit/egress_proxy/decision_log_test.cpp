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

}  // namespace
}  // namespace cordon::egress
