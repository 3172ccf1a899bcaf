// bwrap's --json-status-fd stream, read through the JSON parser.
#include <gtest/gtest.h>

#include "launcher/run/bwrap_status.h"

namespace cordon {
namespace {

TEST(BwrapStatus, ExitCodeLineMeansTheCommandRan) {
  EXPECT_TRUE(bwrap_status_says_command_ran("{ \"child-pid\": 42 }\n{ \"exit-code\": 0 }\n"));
  EXPECT_TRUE(bwrap_status_says_command_ran("{\"child-pid\":42}\n{\"exit-code\":3}"));
}

TEST(BwrapStatus, NoExitCodeMeansItDidNot) {
  EXPECT_FALSE(bwrap_status_says_command_ran(""));
  EXPECT_FALSE(bwrap_status_says_command_ran("{ \"child-pid\": 42 }\n"));
  // Cut off mid-line, or a key only mentioned inside a string: not an exit report.
  EXPECT_FALSE(bwrap_status_says_command_ran("{ \"child-pid\": 42 }\n{ \"exit-co"));
  EXPECT_FALSE(bwrap_status_says_command_ran("{ \"note\": \"exit-code 1\" }\n"));
}

TEST(BwrapStatus, ChildPidLineMeansTheSandboxStarted) {
  EXPECT_TRUE(bwrap_status_says_sandbox_started("{ \"child-pid\": 42 }\n"));
  EXPECT_FALSE(bwrap_status_says_sandbox_started(""));
  EXPECT_FALSE(bwrap_status_says_sandbox_started("{ \"child-p"));
  EXPECT_FALSE(bwrap_status_says_sandbox_started("{ \"note\": \"child-pid\" }\n"));
}

}  // namespace
}  // namespace cordon
