// `--limit NAME=VALUE` may only lower a limit, and only to a value the launch can honour.
#include <gtest/gtest.h>

#include "common/error.h"
#include "launcher/budgets/limits.h"
#include "launcher/inputs/config.h"

namespace cordon {
namespace {

TEST(LimitOverrides, OutOfBoundsValuesAreConfigErrors) {
  Config config = default_config();
  for (const char* item : {"nofile=20", "as_bytes=4096", "wall_clock_seconds=99999999999", "pids_max=0"}) {
    try {
      merge_limit_overrides(config.limits, {item}, config.source.file);
      ADD_FAILURE() << item << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), kExitConfigError) << item;
      EXPECT_NE(std::string(e.what()).find("outside"), std::string::npos) << e.what();
    }
  }
  auto merged = merge_limit_overrides(config.limits, {"nofile=64", "wall_clock_seconds=0", "pids_max=1"}, config.source.file);
  EXPECT_EQ(merged.at("nofile"), 64);
  EXPECT_EQ(merged.at("wall_clock_seconds"), 0);
}

}  // namespace
}  // namespace cordon
