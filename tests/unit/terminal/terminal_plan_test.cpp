// The private terminal's section of the plan: which streams are relayed or filtered.
#include "launcher/terminal/terminal_plan.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

TEST(TerminalPlan, PipesAreFilteredOnlyWhenAsked) {
  TerminalConfig config;
  // stdin a terminal, stdout and stderr pipes: by default they pass byte for byte.
  EXPECT_EQ(plan_terminal(config, "136:3", 0b001).plan.filter_fds, 0U);
  config.filter_pipes = true;
  EXPECT_EQ(plan_terminal(config, "136:3", 0b001).plan.filter_fds, 0b110U);
  // stderr a terminal: relayed through the pty, only stdout needs the pipe filter.
  EXPECT_EQ(plan_terminal(config, "136:3", 0b101).plan.filter_fds, 0b010U);
  EXPECT_EQ(plan_terminal(config, "136:3", 0b111).plan.filter_fds, 0U);
  EXPECT_EQ(plan_terminal(config, "", 0).plan.filter_fds, 0b110U);  // no terminal at all: `| tee`
}

}  // namespace
}  // namespace cordon
