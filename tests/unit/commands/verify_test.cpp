// `cordon verify`'s exit status (README.md, Exit codes) from its helpers' own statuses.
#include <gtest/gtest.h>

#include "common/error.h"
#include "launcher/commands/verify.h"

namespace cordon {
namespace {

// The battery's FAIL count becomes 1, whatever it is: 2 must not read as a configuration error.
TEST(VerifyStatus, TheBatterysFailCountIsOneStatus) {
  EXPECT_EQ(verify_status_of_battery(0), kExitSuccess);
  EXPECT_EQ(verify_status_of_battery(1), kExitChecksFailed);
  EXPECT_EQ(verify_status_of_battery(2), kExitChecksFailed);
  EXPECT_EQ(verify_status_of_battery(27), kExitChecksFailed);
  // The battery could not report (session file, usage), or died: incomplete, never a PASS.
  EXPECT_EQ(verify_status_of_battery(kBatteryExitUsage), kExitInconclusive);
  EXPECT_EQ(verify_status_of_battery(kExitSignalBase + 9), kExitInconclusive);
  // launch_session's own 125 (a teardown it could not verify) stays 125.
  EXPECT_EQ(verify_status_of_battery(kExitLaunchRefused), kExitLaunchRefused);
}

TEST(VerifyStatus, TheProbesVerdicts) {
  EXPECT_EQ(verify_status_of_probes(kProbeExitOk), kExitSuccess);
  EXPECT_EQ(verify_status_of_probes(kProbeExitLeaking), kExitChecksFailed);   // an ESCAPED probe
  EXPECT_EQ(verify_status_of_probes(kProbeExitIncomplete), kExitInconclusive);  // an INCONCLUSIVE one
  EXPECT_EQ(verify_status_of_probes(kProbeExitUsage), kExitInconclusive);
  EXPECT_EQ(verify_status_of_probes(kExitSignalBase + 11), kExitInconclusive);
  EXPECT_EQ(verify_status_of_probes(kExitLaunchRefused), kExitLaunchRefused);
}

// No verdict collides with the configuration error or the refusal.
TEST(VerifyStatus, CodesAreDistinct) {
  const int codes[] = {kExitSuccess, kExitChecksFailed, kExitConfigError, kExitInconclusive, kExitLaunchRefused};
  for (size_t i = 0; i < std::size(codes); ++i)
    for (size_t j = i + 1; j < std::size(codes); ++j) EXPECT_NE(codes[i], codes[j]);
}

}  // namespace
}  // namespace cordon
