// The session keeper's reach (record/sweep_reach.h): each sweep step's place granted with the
// rights that step needs and no more (no links, devices or exec anywhere), and the signal
// scope given up exactly when a v1 cgroup's members are killed by pid.
#include "launcher/record/sweep_reach.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>

#include "common/landlock_abi.h"
#include "common/unique_fd.h"
#include "scratch_dir.h"

namespace cordon {
namespace {

using namespace landlock;

std::map<std::string, uint64_t> by_path(const SweepReach& reach) {
  std::map<std::string, uint64_t> out;
  for (const auto& g : reach.grants) out[g.path] |= g.access;
  return out;
}

constexpr uint64_t kNeverGranted = kAccessFsExecute | kAccessFsMakeSym | kAccessFsMakeChar | kAccessFsMakeBlock |
                                   kAccessFsMakeFifo | kAccessFsMakeSock | kAccessFsIoctlDev | kAccessFsReadFile |
                                   kAccessFsReadDir;

TEST(SweepReach, EachStepsPlaceWithItsRights) {
  SandboxPlan plan;
  plan.agent = "claude";
  plan.intent.workspace = "/home/u/src/app";
  plan.limits.cgroup_budgets.push_back({"pids_max", "pids", cgroup::Version::V2, "/sys/fs/cgroup/u/cordon", 1, {}});
  const SweepReach reach = sweep_reach("/var/lib/cordon/1000/sessions", "20261205T000000Z-ab", "/home/u", plan);
  auto got = by_path(reach);
  EXPECT_EQ(got["/var/lib/cordon/1000"] & kAccessFsMakeReg, kAccessFsMakeReg);
  EXPECT_EQ(got["/home/u/src/app"] & (kAccessFsRefer | kAccessFsMakeDir), kAccessFsRefer | kAccessFsMakeDir);
  EXPECT_EQ(got["/sys/fs/cgroup/u/cordon"] & kAccessFsRemoveDir, kAccessFsRemoveDir);
  EXPECT_EQ(got["/tmp/cordon-jail-20261205T000000Z-ab"], kAccessFsRemoveFile);
  EXPECT_EQ(got["/tmp"], kAccessFsRemoveDir);
  // ~/.claude.json is put back through a file renamed over it: the home's regular files only.
  EXPECT_EQ(got["/home/u"] & (kAccessFsMakeReg | kAccessFsMakeDir | kAccessFsRefer), kAccessFsMakeReg);
  for (const auto& [path, access] : got) EXPECT_EQ(access & kNeverGranted, 0U) << path;
  EXPECT_TRUE(reach.signal_scope);
}

TEST(SweepReach, AV1CgroupKeepsSignalsAndAnAgentWithoutControlFilesLeavesTheHomeOut) {
  SandboxPlan plan;
  plan.agent = "generic";
  plan.intent.workspace = "/w";
  plan.limits.cgroup_budgets.push_back(
      {"memory_max_bytes", "memory", cgroup::Version::V1, "/sys/fs/cgroup/memory/c", 1, {}});
  const SweepReach reach = sweep_reach("/s/1000/sessions", "id", "/home/u", plan);
  EXPECT_FALSE(reach.signal_scope);
  EXPECT_EQ(by_path(reach).count("/home/u"), 0U);
}

// A dotfile manager's link: the file it leads to is the one put back, so its directory too.
TEST(SweepReach, AControlFileLinkGrantsTheDirectoryItLeadsTo) {
  cordon::testing::ScratchDir home("/tmp/cordon-sweep-reach-");
  ASSERT_EQ(::mkdir((home.path() + "/dotfiles").c_str(), 0700), 0);
  { UniqueFd f(::open((home.path() + "/dotfiles/claude.json").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600)); }
  ASSERT_EQ(::symlink("dotfiles/claude.json", (home.path() + "/.claude.json").c_str()), 0);
  SandboxPlan plan;
  plan.agent = "claude";
  auto got = by_path(sweep_reach("/s/1000/sessions", "id", home.path(), plan));
  EXPECT_EQ(got[home.path() + "/dotfiles"] & kAccessFsMakeReg, kAccessFsMakeReg);
}

}  // namespace
}  // namespace cordon
