// Where memory/pids budgets go: parsing the launcher's cgroup membership against mountinfo,
// and placing a budget (or refusing it with a reason and a fix). Pure: fixed texts, no cgroupfs.
#include <gtest/gtest.h>

#include "launcher/budgets/cgroup_plan.h"
#include "launcher/budgets/limits.h"
#include "common/error.h"

namespace cordon::cgroup {
namespace {

// A hybrid host like the CI machine: v1 controllers plus an almost empty v2 "unified" mount.
const char* kHybridCgroup = "9:name=systemd:/\n8:pids:/\n4:memory:/jobs/42\n2:cpu,cpuacct:/\n0::/\n";
const char* kHybridMounts =
    "30 25 0:26 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "31 30 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
    "32 30 0:28 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "33 30 0:29 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "34 30 0:30 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "35 30 0:31 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

// A systemd host with only cgroup v2.
const char* kUnifiedCgroup = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope\n";
const char* kUnifiedMounts = "40 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";

std::vector<Hierarchy> hybrid() {
  return locate_hierarchies(kHybridCgroup, parse_mountinfo(kHybridMounts));
}

TEST(CgroupPlan, LocatesEveryMountedHierarchyOfAHybridHost) {
  auto found = hybrid();
  ASSERT_EQ(found.size(), 4u);  // name=systemd carries no controller and is skipped
  EXPECT_EQ(found[0].own_dir, "/sys/fs/cgroup/pids");
  EXPECT_EQ(found[0].controllers, std::set<std::string>{"pids"});
  EXPECT_EQ(found[1].own_dir, "/sys/fs/cgroup/memory/jobs/42");
  EXPECT_EQ(found[2].own_dir, "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(found[2].controllers, (std::set<std::string>{"cpu", "cpuacct"}));
  EXPECT_EQ(found[3].version, Version::V2);
  EXPECT_EQ(found[3].own_dir, "/sys/fs/cgroup/unified");
}

TEST(CgroupPlan, LocatesTheOwnCgroupOfAUnifiedHost) {
  auto found = locate_hierarchies(kUnifiedCgroup, parse_mountinfo(kUnifiedMounts));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].version, Version::V2);
  EXPECT_EQ(found[0].own_dir, "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope");
}

TEST(CgroupPlan, ResolvesTheOwnPathThroughAMountOfASubtree) {
  // A container's bind of its own subtree: the mount's root is the cgroup itself.
  const char* mounts = "50 25 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
  auto found = locate_hierarchies("0::/docker/abc/inner\n", parse_mountinfo(mounts));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].own_dir, "/sys/fs/cgroup/inner");
  // A membership outside the mounted subtree cannot be reached through it.
  EXPECT_TRUE(locate_hierarchies("0::/elsewhere\n", parse_mountinfo(mounts)).empty());
}

TEST(CgroupPlan, ToleratesMountOptionsAndNamesThatAreNotControllers) {
  const char* mounts =
      "60 25 0:40 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory,name=mem,favordynmods\n"
      "61 25 0:41 / /sys/fs/cgroup/pids ro - cgroup cgroup ro,pids\n"    // read-only: skipped
      "62 25 0:41 / /mnt/pids rw - cgroup cgroup rw,pids\n";            // the same tree, writable
  auto found = locate_hierarchies("5:memory,name=mem:/a\n4:pids:/b\n", parse_mountinfo(mounts));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].own_dir, "/sys/fs/cgroup/memory/a");
  EXPECT_EQ(found[0].controllers, std::set<std::string>{"memory"});
  EXPECT_EQ(found[1].own_dir, "/mnt/pids/b");
  // Only a read-only mount (Docker's default): still located, so the refusal says "not writable".
  auto ro = locate_hierarchies("0::/\n", parse_mountinfo("70 25 0:42 / /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n"));
  ASSERT_EQ(ro.size(), 1u);
  EXPECT_EQ(ro[0].own_dir, "/sys/fs/cgroup");
}

TEST(CgroupPlan, IgnoresMembershipsOutsideTheNamespaceOrRemoved) {
  EXPECT_TRUE(locate_hierarchies("0::/../../user.slice\n", parse_mountinfo(kUnifiedMounts)).empty());
  EXPECT_TRUE(locate_hierarchies("0::/gone (deleted)\n", parse_mountinfo(kUnifiedMounts)).empty());
}

TEST(CgroupPlan, PlacesBudgetsInTheLaunchersOwnV1Cgroups) {
  auto found = hybrid();
  for (auto& h : found) h.writable = true;
  Placement pids = place_budget(found, "pids_max", 512, 0, "root");
  ASSERT_EQ(pids.why_not, "");
  EXPECT_EQ(pids.budget.version, Version::V1);
  EXPECT_EQ(pids.budget.parent_dir, "/sys/fs/cgroup/pids");
  EXPECT_EQ(pids.budget.value, 512);
  ASSERT_EQ(pids.budget.settings.size(), 1u);
  EXPECT_EQ(pids.budget.settings[0].file, "pids.max");
  EXPECT_EQ(pids.budget.settings[0].value, "512");
  Placement memory = place_budget(found, "memory_max_bytes", 1 << 30, 0, "root");
  ASSERT_EQ(memory.why_not, "");
  EXPECT_EQ(memory.budget.parent_dir, "/sys/fs/cgroup/memory/jobs/42");
  ASSERT_EQ(memory.budget.settings.size(), 2u);
  EXPECT_EQ(memory.budget.settings[0].file, "memory.limit_in_bytes");
  EXPECT_EQ(memory.budget.settings[1].file, "memory.memsw.limit_in_bytes");
  EXPECT_TRUE(memory.budget.settings[1].optional);
}

TEST(CgroupPlan, PlacesBudgetsInADelegatedV2Cgroup) {
  auto found = locate_hierarchies(kUnifiedCgroup, parse_mountinfo(kUnifiedMounts));
  found[0].controllers = {"cpu", "memory", "pids"};
  found[0].writable = true;
  Placement memory = place_budget(found, "memory_max_bytes", 4096, 1000, "dev");
  ASSERT_EQ(memory.why_not, "");
  EXPECT_EQ(memory.budget.version, Version::V2);
  ASSERT_EQ(memory.budget.settings.size(), 2u);
  EXPECT_EQ(memory.budget.settings[0].file, "memory.max");
  EXPECT_EQ(memory.budget.settings[1].file, "memory.swap.max");
  EXPECT_EQ(memory.budget.settings[1].value, "0");
}

// cgroup v2 gives no controller to children of a cgroup that holds processes: a launcher
// sharing its cgroup cannot make a session cgroup there unless the controller is already
// handed down (then the session cgroup is only a new child).
TEST(CgroupPlan, RefusesAV2CgroupSharedWithOtherProcessesUnlessTheControllerIsHandedDown) {
  auto found = locate_hierarchies(kUnifiedCgroup, parse_mountinfo(kUnifiedMounts));
  found[0].controllers = {"memory", "pids"};
  found[0].writable = true;
  found[0].other_members = 2;
  Placement shared = place_budget(found, "pids_max", 64, 0, "root");
  EXPECT_NE(shared.why_not.find("2 other processes share the launcher's cgroup"), std::string::npos) << shared.why_not;
  EXPECT_NE(shared.fix.find("Delegate=yes"), std::string::npos);
  found[0].subtree_control = {"pids"};
  EXPECT_EQ(place_budget(found, "pids_max", 64, 0, "root").why_not, "");
  found[0].subtree_control.clear();
  found[0].v2_root = true;  // the root is exempt from the rule
  EXPECT_EQ(place_budget(found, "pids_max", 64, 0, "root").why_not, "");
}

// `cordon setup-user` delegated a cgroup to the user: where the launcher's own cgroup is not
// writable (v1) or is shared with the user's other processes (v2), the sessions go there.
TEST(CgroupPlan, PlacesBudgetsInTheCgroupSetupUserDelegated) {
  auto found = hybrid();  // nothing of the launcher's own writable
  EXPECT_EQ(found[0].mount_root, "/sys/fs/cgroup/pids");
  found[0].delegated_dir = "/sys/fs/cgroup/pids/cordon/dev";
  Placement pids = place_budget(found, "pids_max", 64, 1000, "dev");
  ASSERT_EQ(pids.why_not, "");
  EXPECT_EQ(pids.budget.parent_dir, "/sys/fs/cgroup/pids/cordon/dev");
  EXPECT_EQ(pids.budget.settings[0].file, "pids.max");
  // A writable own cgroup stays first.
  found[0].writable = true;
  EXPECT_EQ(place_budget(found, "pids_max", 64, 1000, "dev").budget.parent_dir, "/sys/fs/cgroup/pids");

  auto unified = locate_hierarchies("0::/cordon/dev/login\n", parse_mountinfo(kUnifiedMounts));
  unified[0].controllers = {"memory", "pids"};
  unified[0].writable = true;
  unified[0].other_members = 1;  // the user's shell
  unified[0].delegated_dir = "/sys/fs/cgroup/cordon/dev";
  Placement memory = place_budget(unified, "memory_max_bytes", 1 << 30, 1000, "dev");
  ASSERT_EQ(memory.why_not, "");
  EXPECT_EQ(memory.budget.parent_dir, "/sys/fs/cgroup/cordon/dev");
  EXPECT_EQ(memory.budget.settings[0].file, "memory.max");
}

TEST(CgroupPlan, RefusesWithTheReasonAndAFix) {
  auto found = hybrid();  // nothing writable
  Placement pids = place_budget(found, "pids_max", 64, 1000, "dev");
  EXPECT_NE(pids.why_not.find("/sys/fs/cgroup/pids is not writable by uid 1000"), std::string::npos) << pids.why_not;
  // The fix names this account, so it can be copied as it stands (a uid when the account has no name).
  EXPECT_NE(pids.fix.find("have root run `cordon setup-user dev` once"), std::string::npos) << pids.fix;
  EXPECT_NE(place_budget(found, "pids_max", 64, 1000, "").fix.find("`cordon setup-user 1000`"), std::string::npos);
  // Root that cannot write its cgroup is in a container: "launch as root" is no advice there.
  Placement in_container = place_budget(found, "pids_max", 64, 0, "root");
  EXPECT_EQ(in_container.fix.find("launch as root"), std::string::npos) << in_container.fix;
  EXPECT_NE(in_container.fix.find("--pids-limit"), std::string::npos) << in_container.fix;
  EXPECT_NE(in_container.fix.find("limits.pids_max = 0"), std::string::npos) << in_container.fix;

  auto unified = locate_hierarchies(kUnifiedCgroup, parse_mountinfo(kUnifiedMounts));
  unified[0].controllers = {"cpu"};
  unified[0].writable = true;
  Placement memory = place_budget(unified, "memory_max_bytes", 1 << 30, 1000, "dev");
  EXPECT_NE(memory.why_not.find("memory controller is not available"), std::string::npos) << memory.why_not;
  EXPECT_NE(memory.why_not.find("cgroup.controllers: cpu"), std::string::npos) << memory.why_not;
  EXPECT_NE(memory.fix.find("Delegate=yes"), std::string::npos);

  Placement none = place_budget({}, "pids_max", 64, 0, "root");
  EXPECT_NE(none.why_not.find("no mounted cgroup hierarchy"), std::string::npos);
}

TEST(CgroupPlan, LimitPlanEnforcesPlacedBudgetsAndRefusesTheRest) {
  auto found = hybrid();
  for (auto& h : found) h.writable = h.own_dir == "/sys/fs/cgroup/pids";
  LimitPlan plan = plan_limits({{"pids_max", 256}}, {}, 0, "root", found, "/etc/cordon/cordon.toml");
  ASSERT_EQ(plan.cgroup_budgets.size(), 1u);
  EXPECT_EQ(plan.cgroup_budgets[0].limit_key, "pids_max");
  EXPECT_NE(std::find(plan.enforced.begin(), plan.enforced.end(), "pids_max"), plan.enforced.end());
  EXPECT_THROW(plan_limits({{"memory_max_bytes", 1 << 30}}, {}, 0, "root", found, "/etc/cordon/cordon.toml"), Error);
  LimitPlan lenient = plan_limits({{"memory_max_bytes", 1 << 30}}, LimitLeniency{{"memory_max_bytes"}, {}}, 0, "root", found, "/x.toml");
  EXPECT_TRUE(lenient.cgroup_budgets.empty());
  ASSERT_EQ(lenient.not_enforced.size(), 1u);
  EXPECT_NE(lenient.not_enforced[0].find("not writable"), std::string::npos);
}

}  // namespace
}  // namespace cordon::cgroup
