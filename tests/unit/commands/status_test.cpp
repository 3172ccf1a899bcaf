// `cordon status` as a person reads it: budgets in units, weak setups named on line one.
#include <gtest/gtest.h>

#include "common/json_codec.h"
#include "launcher/commands/status.h"

namespace cordon {
namespace {

StatusView view_with_limits(std::vector<std::string> limits) {
  StatusView v;
  v.intent.agent.name = "claude";
  v.intent.workspace = "/src/app";
  v.intent.network.mode = NetworkMode::EgressJail;
  v.intent.limits.values = std::move(limits);
  return v;
}

TEST(Status, BudgetsAreShownInUnits) {
  std::string out = render_status(view_with_limits(
      {"core=0", "nofile=1024", "as_bytes=8589934592", "memory_max_bytes=4294967296", "pids_max=512",
       "wall_clock_seconds=28800", "fsize_bytes=1500"}));
  EXPECT_NE(out.find("  limits       no core dumps, 1024 open files, 8 GiB address space per process, "
                     "4 GiB memory (cgroup), 512 pids (cgroup), 8 h wall clock, files up to 1500 B\n"),
            std::string::npos)
      << out;
  EXPECT_NE(render_status(view_with_limits({"wall_clock_seconds=5400"})).find("90 min wall clock"), std::string::npos);
  EXPECT_NE(render_status(view_with_limits({})).find("  limits       none\n"), std::string::npos);
  // JSON keeps the numbers for machines.
  Json json = Json::parse(render_status_json(view_with_limits({"pids_max=512"})));
  EXPECT_EQ(json["limits"]["values"], Json::parse(R"({"pids_max":512})"));
}

// The values come from the session file (inside the sandbox) or a record: one that is not a
// number that fits is shown as written, never thrown on (std::stoull's out_of_range).
TEST(Status, ALimitValueThatIsNoNumberIsShownAsWritten) {
  std::string out;
  ASSERT_NO_THROW(out = render_status(view_with_limits({"nofile=99999999999999999999999", "pids_max=1x"})));
  EXPECT_NE(out.find("nofile=99999999999999999999999, pids_max=1x"), std::string::npos) << out;
}

TEST(Status, FirstLineNamesADisabledJail) {
  StatusView v = view_with_limits({});
  EXPECT_EQ(render_status(v).find("NOT CONFINED"), std::string::npos);
  v.intent.network.mode = NetworkMode::Host;
  std::string out = render_status(v);
  EXPECT_NE(out.substr(0, out.find('\n')).find("NETWORK NOT CONFINED"), std::string::npos) << out;
}

// The last allowlist session's counts are shown (made terminal-safe: a destination is the
// sandbox's choice) and carried in JSON; with none recorded the line is absent.
TEST(Status, LastEgressIsShownWhenRecorded) {
  StatusView v = view_with_limits({});
  EXPECT_EQ(render_status(v).find("last egress"), std::string::npos);
  EXPECT_EQ(Json::parse(render_status_json(v))["last_egress"], "");
  v.last_egress = "1 connection(s) allowed, 1 denied (evil\x1b[2J.test:443); session s1, ended 2026-12-03T07:00:00Z";
  std::string out = render_status(v);
  EXPECT_NE(out.find("  last egress  1 connection(s) allowed, 1 denied (evil"), std::string::npos) << out;
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  EXPECT_EQ(Json::parse(render_status_json(v))["last_egress"], v.last_egress);
}

}  // namespace
}  // namespace cordon
