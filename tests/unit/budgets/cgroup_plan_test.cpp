// Where memory/pids budgets go: parsing the launcher's cgroup membership against mountinfo,
// and placing a budget (or refusing it with a reason and a fix). Pure: fixed texts, no cgroupfs.
#include <gtest/gtest.h>

#include "launcher/budgets/cgroup_plan.h"
#include "launcher/budgets/limits.h"
#include "common/error.h"
#include "../scratch_dir.h"

#include <filesystem>
#include <fstream>

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

TEST(CgroupPlan, ReadsALimitFileAsAContainerWritesIt) {
  EXPECT_EQ(parse_cgroup_limit("4294967296\n"), 4294967296LL);
  EXPECT_EQ(parse_cgroup_limit("max\n"), -1);
  EXPECT_EQ(parse_cgroup_limit("9223372036854771712\n"), -1) << "cgroup v1's no limit";
  EXPECT_EQ(parse_cgroup_limit(""), -1) << "absent (a v2 root has no memory.max)";
  EXPECT_EQ(parse_cgroup_limit("-5"), -1);
}

// The smallest limit on the way up from the launcher's cgroup to the mount point: a pod's
// limit sits on the container's cgroup, an ancestor of a launcher in a scope below it.
TEST(CgroupPlan, TheEnclosingLimitIsTheSmallestOnTheWayUpToTheMount) {
  cordon::testing::ScratchDir root;
  const std::string mount = root.path() + "/fs", own = mount + "/pod/scope";
  std::filesystem::create_directories(own);
  auto write = [](const std::string& path, const std::string& text) { std::ofstream(path) << text; };
  write(root.path() + "/memory.max", "1024\n");  // above the mount: not this hierarchy's
  write(mount + "/memory.max", "max\n");
  write(mount + "/pod/memory.max", "4294967296\n");
  write(own + "/memory.max", "max\n");
  EnclosingLimit found = read_enclosing_limit(mount, own, "memory.max");
  EXPECT_EQ(found.value, 4294967296LL);
  EXPECT_EQ(found.file, mount + "/pod/memory.max");
  write(own + "/memory.max", "8589934592\n");
  EXPECT_EQ(read_enclosing_limit(mount, own, "memory.max").value, 4294967296LL) << "the smaller one binds";
  EXPECT_EQ(read_enclosing_limit(mount, own, "pids.max").value, -1) << "no file: no limit";
}

// A configured budget above the pod's limit is refused with both numbers and the fields that
// fix it; a defaulted one is lowered to the limit; one that fits is placed as it is.
TEST(CgroupPlan, ABudgetAboveTheContainersLimitIsRefusedOrADefaultLowered) {
  auto found = hybrid();
  for (auto& h : found) {
    h.writable = true;
    if (h.own_dir == "/sys/fs/cgroup/memory/jobs/42")
      h.enclosing["memory_max_bytes"] = {4LL << 30, "/sys/fs/cgroup/memory/jobs/memory.limit_in_bytes"};
  }
  try {
    plan_limits({{"memory_max_bytes", 8LL << 30}}, {}, 1000, "dev", found, "/etc/cordon/cordon.toml");
    ADD_FAILURE() << "a budget above the container's limit launched";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("limits.memory_max_bytes = 8589934592 is above the limit cordon itself "
                                         "runs under (4294967296, set in /sys/fs/cgroup/memory/jobs/"
                                         "memory.limit_in_bytes"),
              std::string::npos)
        << e.what();
    EXPECT_NE(e.fix().find("at most 4294967296 in /etc/cordon/cordon.toml"), std::string::npos) << e.fix();
    EXPECT_NE(e.fix().find("resources.limits.memory"), std::string::npos) << e.fix();
    EXPECT_EQ(e.exit_code(), cordon::kExitConfigError);
  }
  // Best effort does not excuse it: the budget is wrong, not merely unenforceable.
  EXPECT_THROW(plan_limits({{"memory_max_bytes", 8LL << 30}}, LimitLeniency{{"memory_max_bytes"}, {}}, 1000, "dev",
                           found, "/x.toml"),
               Error);
  LimitPlan lowered =
      plan_limits({{"memory_max_bytes", 8LL << 30}}, LimitLeniency{{}, {"memory_max_bytes"}}, 1000, "dev", found, "/x");
  ASSERT_EQ(lowered.cgroup_budgets.size(), 1u);
  EXPECT_EQ(lowered.cgroup_budgets[0].value, 4LL << 30);
  LimitPlan fits = plan_limits({{"memory_max_bytes", 3LL << 30}}, {}, 1000, "dev", found, "/x");
  ASSERT_EQ(fits.cgroup_budgets.size(), 1u);
  EXPECT_EQ(fits.cgroup_budgets[0].value, 3LL << 30);
  EXPECT_FALSE(budget_exceeds(found, "pids_max", 1 << 20)) << "nothing encloses pids here";
}

}  // namespace
}  // namespace cordon::cgroup
