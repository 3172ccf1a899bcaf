// Container facts (inputs/container_facts.h): what is read from mountinfo and /proc/self/status,
// and the fix doctor gives for each mechanism where it runs: a pod's manifest field, a
// container's flag, the host's setting.
#include "launcher/inputs/container_facts.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

// A container's mountinfo: an overlay root, /proc with the runtime's masks, a read-only cgroup2.
constexpr const char* kContainerMounts =
    "600 500 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w\n"
    "601 600 0:51 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
    "602 601 0:5 /null /proc/kcore rw,nosuid - devtmpfs udev rw\n"
    "603 601 0:52 / /proc/acpi ro,relatime - tmpfs tmpfs ro\n"
    "604 600 0:53 / /sys ro,nosuid - sysfs sysfs ro\n"
    "605 604 0:28 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw\n";

constexpr const char* kHostMounts =
    "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
    "21 26 0:20 / /proc rw,relatime - proc proc rw\n"
    "22 26 0:21 / /sys rw,relatime - sysfs sysfs rw\n"
    "30 22 0:26 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw\n";

TEST(ContainerFacts, MasksOverProcAndAReadOnlyCgroupAreSeen) {
  EXPECT_EQ(proc_masks_in(kContainerMounts), (std::vector<std::string>{"/proc/kcore", "/proc/acpi"}));
  EXPECT_TRUE(cgroup_read_only_in(kContainerMounts));
  EXPECT_TRUE(proc_masks_in(kHostMounts).empty());
  EXPECT_FALSE(cgroup_read_only_in(kHostMounts));
}

TEST(ContainerFacts, ASeccompFilterIsModeTwo) {
  EXPECT_TRUE(seccomp_filtered_in("Name:\tsh\nSeccomp:\t2\nSeccomp_filters:\t1\n"));
  EXPECT_FALSE(seccomp_filtered_in("Name:\tsh\nSeccomp:\t0\n"));
  EXPECT_FALSE(seccomp_filtered_in(""));
}

ContainerFacts at(const std::string& engine) {
  ContainerFacts f;
  f.engine = engine;
  f.proc_masks = {"/proc/kcore"};
  return f;
}

TEST(ContainerFacts, EachFixNamesWhatChangesItWhereItRuns) {
  const ContainerFacts pod = at("kubernetes"), podman = at("podman"), host = at("");
  EXPECT_NE(user_namespace_fix(pod).find("securityContext.seccompProfile"), std::string::npos);
  EXPECT_NE(user_namespace_fix(podman).find("--security-opt seccomp=unconfined"), std::string::npos);
  EXPECT_NE(user_namespace_fix(host).find("user.max_user_namespaces"), std::string::npos);
  EXPECT_NE(fresh_proc_fix(pod).find("procMount: Unmasked"), std::string::npos);
  EXPECT_NE(fresh_proc_fix(pod).find("/proc/kcore"), std::string::npos);
  EXPECT_NE(fresh_proc_fix(podman).find("systempaths=unconfined"), std::string::npos);
  EXPECT_NE(tun_device_fix(pod).find("mode = \"allowlist\""), std::string::npos);
  EXPECT_NE(tun_device_fix(podman).find("--device=/dev/net/tun"), std::string::npos);
  EXPECT_EQ(tun_device_fix(host), "");
  EXPECT_NE(cgroup_budget_fix(pod).find("resources.limits"), std::string::npos);
  EXPECT_NE(cgroup_budget_fix(podman).find("--pids-limit"), std::string::npos);
  EXPECT_EQ(cgroup_budget_fix(host), "") << "a host keeps the budget's own fix (a root launch, delegation)";
}

// The causes a kernel setting gives come before the runtime's: they hold in a pod too.
TEST(ContainerFacts, AKernelSettingIsNamedBeforeTheRuntime) {
  ContainerFacts f = at("kubernetes");
  f.apparmor_restricts_userns = true;
  EXPECT_NE(user_namespace_fix(f).find("apparmor_restrict_unprivileged_userns"), std::string::npos);
  EXPECT_NE(user_namespace_fix(f).find("appArmorProfile"), std::string::npos);
  f.max_user_namespaces = 0;
  EXPECT_NE(user_namespace_fix(f).find("user.max_user_namespaces is 0"), std::string::npos);
}

// A runtime's read-only /proc/sys stops bwrap's --disable-userns: the fix is the /proc
// masking's field, not the seccomp profile (seen under podman kube play without procMount).
TEST(ContainerFacts, AReadOnlyProcSysIsFixedByUnmaskingProcNotBySeccomp) {
  const std::string failure = "bwrap: cannot open /proc/sys/user/max_user_namespaces: Read-only file system";
  EXPECT_NE(user_namespace_fix(at("kubernetes"), failure).find("procMount: Unmasked"), std::string::npos);
  EXPECT_EQ(user_namespace_fix(at("kubernetes"), failure).find("seccompProfile"), std::string::npos);
  EXPECT_NE(user_namespace_fix(at("podman"), failure).find("systempaths=unconfined"), std::string::npos);
  EXPECT_NE(user_namespace_fix(at("kubernetes"), "bwrap: No permissions to create new namespace")
                .find("seccompProfile"),
            std::string::npos);
  EXPECT_EQ(user_namespace_fix(at(""), failure).find("procMount"), std::string::npos) << "a host has no runtime";
}

}  // namespace
}  // namespace cordon
