// Where shims go, by where cordon is installed (the package test runs it for real).
#include "launcher/commands/shim.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

TEST(ShimDir, ASourceInstallPutsShimsBesideCordon) {
  EXPECT_EQ(shim_dir_for("/usr/local/bin"), "/usr/local/bin");
  EXPECT_EQ(shim_dir_for("/opt/cordon/bin"), "/opt/cordon/bin");
}

// /usr/bin comes after /usr/local/bin on PATH, where npm puts the agents: a shim there would
// be shadowed by the agent it wraps.
TEST(ShimDir, TheDistributionsCordonPutsShimsInUsrLocalBin) {
  EXPECT_EQ(shim_dir_for("/usr/bin"), "/usr/local/bin");
}

TEST(ShimDir, TheAgentSearchStartsInTheShimDirectory) {
  ShimPaths paths{shim_dir_for("/usr/bin"), "/usr/libexec/cordon/agents", "/usr/bin/cordon"};
  auto dirs = agent_search_dirs(paths, "/usr/bin:/bin");
  ASSERT_FALSE(dirs.empty());
  EXPECT_EQ(dirs.front(), "/usr/local/bin");
}

}  // namespace
}  // namespace cordon
