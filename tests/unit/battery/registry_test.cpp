// The battery's numbered checks: 01..N without gaps (scripts and docs cite the numbers),
// each with a property and a mechanism; a check that throws is a FAIL, never a crash.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "battery/check.h"
#include "battery/context.h"
#include "battery/selection.h"

namespace cordon::battery {
namespace {

std::string two_digits(int n) { return (n < 10 ? "0" : "") + std::to_string(n); }

TEST(BatteryRegistry, ChecksAreNumberedOneToNWithoutGaps) {
  const auto& checks = all_checks();
  ASSERT_GE(checks.size(), 27u);
  std::set<std::string> names;
  for (size_t i = 0; i < checks.size(); ++i) {
    EXPECT_EQ(checks[i].id, two_digits(static_cast<int>(i) + 1));
    EXPECT_TRUE(names.insert(checks[i].name).second) << "duplicate name " << checks[i].name;
    EXPECT_NE(std::string(checks[i].property), "") << checks[i].id;
    EXPECT_NE(std::string(checks[i].mechanism), "") << checks[i].id;
    EXPECT_NE(checks[i].run, nullptr) << checks[i].id;
  }
}

Outcome throws(const Context&) { throw std::runtime_error("no /proc here"); }
Outcome passes_with_own_mechanism(const Context&) { return pass("fine", "observed mechanism"); }
Outcome fails_plainly(const Context&) { return fail("a reason"); }

TEST(BatteryRunCheck, AnExceptionBecomesAFailNamingIt) {
  CheckResult r = run_check({"98", "thrower", "some_property", "the default mechanism", throws}, Context{});
  EXPECT_EQ(r.status, Status::Fail);
  EXPECT_EQ(r.detail, "check could not run: no /proc here");
  EXPECT_EQ(r.id, "98");
  EXPECT_EQ(r.property, "some_property");
}

TEST(BatteryRunCheck, TheObservedMechanismReplacesTheDefault) {
  Context context;
  CheckResult own = run_check({"97", "p", "prop", "default", passes_with_own_mechanism}, context);
  EXPECT_EQ(own.status, Status::Pass);
  EXPECT_EQ(own.detail, "fine");
  EXPECT_EQ(own.mechanism, "observed mechanism");
  CheckResult plain = run_check({"96", "f", "prop", "default", fails_plainly}, context);
  EXPECT_EQ(plain.status, Status::Fail);
  EXPECT_EQ(plain.mechanism, "default");
}

TEST(BatterySelection, OnlyAcceptsPaddedAndUnpaddedNumbers) {
  std::set<std::string> ids;
  std::string bad;
  ASSERT_TRUE(parse_only("7,19,27", ids, &bad)) << bad;
  EXPECT_EQ(ids, (std::set<std::string>{"07", "19", "27"}));
  ASSERT_TRUE(parse_only("07", ids, &bad));
  EXPECT_EQ(ids.size(), 3u);  // accumulates, no duplicates
}

TEST(BatterySelection, UnknownNumbersAreNamed) {
  std::set<std::string> ids;
  std::string bad;
  EXPECT_FALSE(parse_only("07,99", ids, &bad));
  EXPECT_EQ(bad, "99");
  EXPECT_FALSE(parse_only("", ids, &bad));
  EXPECT_EQ(bad, "");
  EXPECT_FALSE(parse_only("7,,8", ids, &bad));
  EXPECT_FALSE(parse_only("x", ids, &bad));
  EXPECT_EQ(bad, "0x");
}

}  // namespace
}  // namespace cordon::battery
