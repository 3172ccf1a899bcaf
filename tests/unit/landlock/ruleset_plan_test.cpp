#include "launcher/landlock/ruleset_plan.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace cordon::landlock {
namespace {

using Rules = std::vector<LandlockRule>;

// The masks, spelled as numbers so a change to a right set shows here.
constexpr uint64_t kR = 0xc, kRX = 0xd, kRW = 0x77bf, kDev = 0xc006, kProc = 0x400e, kDir = 0x8;

// A system-view plan as plan_filesystem() orders it, one step of each role.
std::vector<MountStep> system_view() {
  return {
      {MountOp::RoBind, "/usr", "/usr", MountRole::SystemRoot},
      {MountOp::Symlink, "usr/bin", "/bin", MountRole::SystemRoot},
      {MountOp::RoBind, "/etc", "/etc", MountRole::SystemRoot},
      {MountOp::Dev, "", "/dev", MountRole::Devices},
      {MountOp::Proc, "", "/proc", MountRole::Proc},
      {MountOp::RoBind, "/proc/sys", "/proc/sys", MountRole::ProcGuard},
      {MountOp::Tmpfs, "", "/tmp", MountRole::RuntimeTmpfs, 1 << 20},
      {MountOp::Tmpfs, "", "/run", MountRole::RuntimeTmpfs},
      {MountOp::Tmpfs, "", "/var/tmp", MountRole::RuntimeTmpfs},
      {MountOp::RoBind, "/run/systemd/resolve/stub-resolv.conf", "/run/systemd/resolve/stub-resolv.conf",
       MountRole::ResolvTarget},
      {MountOp::Tmpfs, "", "/srv", MountRole::Siblings},
      {MountOp::RoBind, "/opt/data", "/opt/data", MountRole::ReadPath},
      {MountOp::Tmpfs, "", "/root", MountRole::AccountHome},
      {MountOp::Tmpfs, "", "/home/u", MountRole::HomeTmpfs},
      {MountOp::RoBind, "/home/u/.gitconfig", "/home/u/.gitconfig", MountRole::HomeKeep},
      {MountOp::BindFd, "/home/u/.claude", "/home/u/.claude", MountRole::HomeEntry},
      {MountOp::BindFd, "/var/cache/cordon/npm", "/home/u/.npm", MountRole::Cache},
      {MountOp::RoBindFd, "/home/u/.claude/settings.json", "/home/u/.claude/settings.json", MountRole::Control},
      {MountOp::BindFd, "/srv/proj", "/srv/proj", MountRole::Workspace},
      {MountOp::RoBindFd, "/srv/proj/.git/hooks", "/srv/proj/.git/hooks", MountRole::Foothold},
      {MountOp::RoBind, "/srv/proj/.git", "/srv/proj/.git", MountRole::FootholdPin},
      {MountOp::RoBind, "/run/cordon-empty", "/etc/shadow", MountRole::Mask},
      {MountOp::BindFd, "/data/sock", "/data/sock", MountRole::Writable},
      {MountOp::Tmpfs, "", "/run/cordon", MountRole::SessionDir},
      {MountOp::DataFiles, "", "/run/cordon", MountRole::SessionDir},
      {MountOp::RemountRo, "", "/run/cordon", MountRole::SessionDir},
      {MountOp::RoBind, "/usr/lib/cordon", "/usr/lib/cordon", MountRole::Libexec},
      {MountOp::RoBind, "/opt/agent/bin/agent", "/opt/agent/bin/agent", MountRole::AgentBinary},
      {MountOp::RemountRo, "", "/srv", MountRole::ReadOnlyAfter},
      {MountOp::RemountRo, "", "/root", MountRole::AccountHome},
      {MountOp::RemountRo, "", "/", MountRole::ReadOnlyAfter},
  };
}

TEST(LandlockRuleset, RightSetsAreTheDesignTable) {
  EXPECT_EQ(kReadRights, kR);
  EXPECT_EQ(kReadExecRights, kRX);
  EXPECT_EQ(kReadWriteRights, kRW);  // no MAKE_CHAR (0x40), no MAKE_BLOCK (0x800), no IOCTL_DEV
  EXPECT_EQ(kDeviceRights, kDev);
  EXPECT_EQ(kProcRights, kProc);
  EXPECT_EQ(kBinaryRights, 0x5u);
}

TEST(LandlockRuleset, EachRoleGetsItsRightsAtAbi7) {
  const LandlockSection s = plan_landlock(LandlockMode::Auto, 7, system_view());
  EXPECT_TRUE(s.apply);
  EXPECT_EQ(s.mode, LandlockMode::Auto);
  EXPECT_EQ(s.abi, 7);
  EXPECT_EQ(s.handled_fs, 0xffffu);
  EXPECT_EQ(s.scoped, 0x3u);
  EXPECT_EQ(s.unavailable, std::vector<std::string>{});
  EXPECT_EQ(s.why_not, "");
  // Sorted by path; none for the link (/bin), /proc/sys, the control entry, the footholds, the
  // mask, the remounts; pruned: the resolv.conf target and the session dir (under /run's RW),
  // the kept and state entries and the cache (under the home's RW), libexec (under /usr's RX),
  // the listable-only /dev, /root and /srv (under /'s READ_DIR).
  const Rules expected = {
      {"/", kDir},
      {"/data/sock", kRW},
      {"/dev/full", kDev},
      {"/dev/null", kDev},
      {"/dev/pts", kDir | kDev},
      {"/dev/random", kDev},
      {"/dev/shm", kRW},
      {"/dev/tty", kDev},
      {"/dev/urandom", kDev},
      {"/dev/zero", kDev},
      {"/etc", kRX},
      {"/home/u", kRW},
      {"/opt/agent/bin/agent", 0x5},
      {"/opt/data", kRX},
      {"/proc", kProc},
      {"/run", kRW},
      {"/srv/proj", kRW},
      {"/tmp", kRW},
      {"/usr", kRX},
      {"/var/tmp", kRW},
  };
  EXPECT_EQ(s.rules, expected);
}

TEST(LandlockRuleset, ReadOnlyOverlaysAndLinksGetNoRule) {
  // Alone, outside every other rule, so pruning cannot be why they are missing.
  std::vector<MountStep> mounts;
  for (MountRole role :
       {MountRole::Control, MountRole::Foothold, MountRole::FootholdPin, MountRole::Mask, MountRole::PrivateMask,
        MountRole::ReadOnlyAfter, MountRole::ProcGuard, MountRole::TestAddition})
    mounts.push_back({MountOp::RoBind, "/x", "/x" + std::to_string(static_cast<int>(role)), role});
  mounts.push_back({MountOp::Tmpfs, "", "/private", MountRole::PrivateMask});
  mounts.push_back({MountOp::Symlink, "usr/lib", "/lib", MountRole::SystemRoot});
  mounts.push_back({MountOp::RemountRo, "", "/ro", MountRole::HomeTmpfs});
  EXPECT_EQ(plan_landlock(LandlockMode::Auto, 7, mounts).rules, (Rules{{"/", kDir}}));
}

TEST(LandlockRuleset, HostViewAndHostProc) {
  const std::vector<MountStep> mounts = {
      {MountOp::RoBind, "/", "/", MountRole::SystemRoot},
      {MountOp::Dev, "", "/dev", MountRole::Devices},
      {MountOp::RoBind, "/proc", "/proc", MountRole::Proc},  // proc = "host-ro"
      {MountOp::RoBind, "/srv/data", "/srv/data", MountRole::ReadPath},
      {MountOp::BindFd, "/srv/proj", "/srv/proj", MountRole::Workspace},
  };
  const Rules rules = plan_landlock(LandlockMode::Auto, 7, mounts, "", true).rules;  // on a terminal
  // / RX covers /dev's listing, the read path and /proc's read; the devices' writes it does not.
  const Rules expected = {{"/", kRX},          {"/dev/console", kDev},    {"/dev/full", kDev},
                          {"/dev/null", kDev}, {"/dev/pts", kDir | kDev}, {"/dev/random", kDev},
                          {"/dev/shm", kRW},   {"/dev/tty", kDev},        {"/dev/urandom", kDev},
                          {"/dev/zero", kDev}, {"/srv/proj", kRW}};
  EXPECT_EQ(rules, expected);
}

TEST(LandlockRuleset, HostDevicesAreRuledLikeFreshOnes) {
  const std::vector<MountStep> fresh = {{MountOp::Dev, "", "/dev", MountRole::Devices}};
  const std::vector<MountStep> host = {{MountOp::DevBind, "/dev", "/dev", MountRole::Devices}};
  const Rules rules = plan_landlock(LandlockMode::Auto, 7, host).rules;
  EXPECT_EQ(rules, plan_landlock(LandlockMode::Auto, 7, fresh).rules);
  ASSERT_EQ(rules.size(), 9u);  // /, 6 nodes, pts, shm (/dev's READ_DIR is /'s); nothing like /dev/sda
  for (const LandlockRule& r : rules) EXPECT_NE(r.path, "/dev/sda");
}

// /dev/console is granted only when bwrap binds the session's terminal there: a host /dev bound
// by mistake must not open the host's console.
TEST(LandlockRuleset, TheConsoleOnlyWhenItIsTheSessionsTerminal) {
  const std::vector<MountStep> dev = {{MountOp::Dev, "", "/dev", MountRole::Devices}};
  auto has_console = [](const LandlockSection& s) {
    for (const LandlockRule& r : s.rules)
      if (r.path == "/dev/console") return r.access == kDev;
    return false;
  };
  EXPECT_FALSE(has_console(plan_landlock(LandlockMode::Auto, 7, dev)));
  EXPECT_TRUE(has_console(plan_landlock(LandlockMode::Auto, 7, dev, "", true)));
}

TEST(LandlockRuleset, PrunesWhatAncestorsAlreadyGrant) {
  const std::vector<MountStep> mounts = {
      {MountOp::RoBind, "/a", "/a", MountRole::ReadPath},              // RX
      {MountOp::RoBind, "/a/b", "/a/b", MountRole::ResolvTarget},      // R: within RX, dropped
      {MountOp::BindFd, "/a/b/c", "/a/b/c", MountRole::Writable},      // RW: more, kept
      {MountOp::RoBind, "/a/b/c/d", "/a/b/c/d", MountRole::HomeKeep},  // RX: within RW, dropped
      {MountOp::RoBind, "/ab", "/ab", MountRole::ReadPath},            // a sibling by name only: kept
      {MountOp::Tmpfs, "", "/d", MountRole::Siblings},                 // READ_DIR: /'s, dropped
      {MountOp::RoBind, "/d/e", "/d/e", MountRole::AgentBinary},       // READ_FILE|EXECUTE: kept
      {MountOp::RoBind, "/d/e/f", "/d/e/f", MountRole::ReadPath},      // RX = union of both: dropped
      {MountOp::Tmpfs, "", "/g", MountRole::AccountHome},              // READ_DIR
      {MountOp::Tmpfs, "", "/g", MountRole::HomeTmpfs},                // same path: merged
  };
  const Rules expected = {{"/", kDir}, {"/a", kRX}, {"/a/b/c", kRW}, {"/ab", kRX}, {"/d/e", 0x5}, {"/g", kRW}};
  EXPECT_EQ(plan_landlock(LandlockMode::Auto, 7, mounts).rules, expected);
}

uint64_t rights_at(const LandlockSection& s, const std::string& path) {
  for (const LandlockRule& r : s.rules)
    if (r.path == path) return r.access;
  return 0;
}

TEST(LandlockRuleset, MasksEveryRuleByTheAbi) {
  const LandlockSection abi2 = plan_landlock(LandlockMode::Auto, 2, system_view());
  EXPECT_TRUE(abi2.apply);
  EXPECT_EQ(abi2.handled_fs, 0x3fffu);
  EXPECT_EQ(abi2.scoped, 0u);
  EXPECT_EQ(rights_at(abi2, "/srv/proj"), 0x37bfu);  // no TRUNCATE
  EXPECT_EQ(rights_at(abi2, "/dev/null"), 0x6u);     // READ_FILE|WRITE_FILE
  EXPECT_EQ(rights_at(abi2, "/dev/pts"), 0xeu);
  EXPECT_EQ(rights_at(abi2, "/proc"), 0xeu);
  EXPECT_EQ(abi2.unavailable, (std::vector<std::string>{"truncate (ABI 3)", "device ioctl (ABI 5)",
                                                        "abstract unix socket and signal scopes (ABI 6)"}));
  const LandlockSection abi3 = plan_landlock(LandlockMode::Auto, 3, system_view());
  EXPECT_EQ(rights_at(abi3, "/srv/proj"), kRW);
  EXPECT_EQ(rights_at(abi3, "/dev/null"), 0x4006u);  // + TRUNCATE, no IOCTL_DEV
  EXPECT_EQ(abi3.scoped, 0u);
  const LandlockSection abi5 = plan_landlock(LandlockMode::Auto, 5, system_view());
  EXPECT_EQ(rights_at(abi5, "/dev/null"), kDev);
  EXPECT_EQ(abi5.scoped, 0u);
  EXPECT_EQ(abi5.unavailable, std::vector<std::string>{"abstract unix socket and signal scopes (ABI 6)"});
  EXPECT_EQ(plan_landlock(LandlockMode::Auto, 6, system_view()).scoped, 0x3u);
  for (int abi = 2; abi <= 8; ++abi) {
    const LandlockSection s = plan_landlock(LandlockMode::Required, abi, system_view());
    EXPECT_EQ(s.handled_fs, handled_fs_for_abi(abi));
    EXPECT_EQ(s.rules.size(), 20u) << abi;
    for (const LandlockRule& r : s.rules) EXPECT_EQ(r.access & ~s.handled_fs, 0u) << abi << ' ' << r.path;
  }
}

TEST(LandlockRuleset, OffAppliesNothing) {
  const LandlockSection s = plan_landlock(LandlockMode::Off, 7, system_view());
  EXPECT_FALSE(s.apply);
  EXPECT_EQ(s.mode, LandlockMode::Off);
  EXPECT_EQ(s.abi, 7);
  EXPECT_EQ(s.why_not, "sandbox.landlock = \"off\"");
  EXPECT_TRUE(s.rules.empty());
  EXPECT_EQ(s.handled_fs, 0u);
  EXPECT_EQ(s.scoped, 0u);
  EXPECT_TRUE(s.unavailable.empty());
  // Off never refuses, whatever the kernel.
  EXPECT_FALSE(plan_landlock(LandlockMode::Off, 0, system_view()).apply);
}

TEST(LandlockRuleset, AutoBelowAbi2RecordsWhy) {
  const LandlockSection abi1 = plan_landlock(LandlockMode::Auto, 1, system_view());
  EXPECT_FALSE(abi1.apply);
  EXPECT_TRUE(abi1.rules.empty());
  EXPECT_EQ(abi1.handled_fs, 0u);
  EXPECT_NE(abi1.why_not.find("ABI 1"), std::string::npos) << abi1.why_not;
  EXPECT_NE(abi1.why_not.find("EXDEV"), std::string::npos) << abi1.why_not;
  EXPECT_EQ(abi1.unavailable.front(), "refer (ABI 2)");
  const LandlockSection none = plan_landlock(LandlockMode::Auto, 0, system_view(), "add landlock to lsm=");
  EXPECT_FALSE(none.apply);
  EXPECT_EQ(none.why_not, "this kernel has no Landlock: add landlock to lsm=");
  EXPECT_EQ(none.unavailable.size(), 5u);
  EXPECT_EQ(plan_landlock(LandlockMode::Auto, 0, {}).why_not, "this kernel has no Landlock");
}

TEST(LandlockRuleset, RequiredRefusesBelowAbi2WithTheFix) {
  for (int abi : {0, 1}) {
    try {
      plan_landlock(LandlockMode::Required, abi, system_view(), "the kernel said ENOSYS");
      ADD_FAILURE() << "no refusal at ABI " << abi;
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("sandbox.landlock = \"required\", but ", 0), 0u) << what;
      EXPECT_NE(what.find(abi == 0 ? "the kernel said ENOSYS" : "ABI 1"), std::string::npos) << what;
      EXPECT_NE(e.fix().find("lsm="), std::string::npos) << e.fix();
      EXPECT_NE(e.fix().find("landlock_*"), std::string::npos) << e.fix();
      EXPECT_NE(e.fix().find("landlock = \"auto\" (weaker"), std::string::npos) << e.fix();
      EXPECT_EQ(e.exit_code(), kExitLaunchRefused);
    }
  }
  EXPECT_TRUE(plan_landlock(LandlockMode::Required, 2, system_view()).apply);
}

TEST(LandlockRuleset, RulesFileRoundTrips) {
  const LandlockSection s = plan_landlock(LandlockMode::Auto, 7, system_view());
  const LandlockRules rules = rules_of(s);
  EXPECT_EQ(rules.abi, 7);
  EXPECT_EQ(rules.handled_fs, s.handled_fs);
  EXPECT_EQ(rules.scoped, s.scoped);
  std::string problem;
  auto parsed = parse_rules(render_rules(rules), &problem);
  ASSERT_TRUE(parsed) << problem;
  EXPECT_EQ(parsed->rules, s.rules);
}

}  // namespace
}  // namespace cordon::landlock
