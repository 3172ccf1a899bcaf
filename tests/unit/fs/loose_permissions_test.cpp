// What a session left writable for other users is tightened after it: group and other write,
// set-id bits and write-granting ACLs on entries changed since the launch, below the roots,
// never through a link, never on what was so before the launch.
#include "launcher/fs/loose_permissions.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <thread>

namespace cordon {
namespace {

namespace fs = std::filesystem;

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

long long ctime_ns(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return static_cast<long long>(st.st_ctim.tv_sec) * 1000000000LL + st.st_ctim.tv_nsec;
}

void touch(const std::string& path, mode_t mode) {
  std::ofstream(path) << "x";
  ASSERT_EQ(::chmod(path.c_str(), mode), 0) << path;
}

// An ACL xattr value: version 2, then {tag, perm, id} little-endian.
std::string acl(std::initializer_list<std::array<uint32_t, 3>> entries) {
  std::string v = {2, 0, 0, 0};
  for (const auto& [tag, perm, id] : entries) {
    v += {static_cast<char>(tag), static_cast<char>(tag >> 8), static_cast<char>(perm), 0};
    for (int i = 0; i < 4; ++i) v += static_cast<char>(id >> (8 * i));
  }
  return v;
}

constexpr uint32_t kUserObj = 1, kUser = 2, kGroupObj = 4, kGroup = 8, kMask = 0x10, kOther = 0x20;

TEST(LoosePermissions, LooseBitsAreOtherWriteGroupWriteOnASharedGroupAndSetId) {
  EXPECT_EQ(loose_mode_bits(S_IFREG | 0644, 100, std::nullopt), 0u);
  EXPECT_EQ(loose_mode_bits(S_IFREG | 0666, 100, std::nullopt), static_cast<mode_t>(0022));
  EXPECT_EQ(loose_mode_bits(S_IFREG | 0666, 100, gid_t{100}), static_cast<mode_t>(0002));  // the private group
  EXPECT_EQ(loose_mode_bits(S_IFREG | 0664, 100, gid_t{7}), static_cast<mode_t>(0020));
  EXPECT_EQ(loose_mode_bits(S_IFREG | 04755, 100, std::nullopt), static_cast<mode_t>(04000));
  EXPECT_EQ(loose_mode_bits(S_IFREG | 02755, 100, std::nullopt), static_cast<mode_t>(02000));
  EXPECT_EQ(loose_mode_bits(S_IFDIR | 02755, 100, std::nullopt), 0u);  // a directory's setgid: group of new entries
  EXPECT_EQ(loose_mode_bits(S_IFDIR | 01777, 100, std::nullopt), static_cast<mode_t>(0022));
}

TEST(LoosePermissions, AclsGrantingWriteToAnotherUserGroupOrOthersCount) {
  const auto base = {std::array<uint32_t, 3>{kUserObj, 6, 0}, {kGroupObj, 4, 0}, {kOther, 4, 0}};
  EXPECT_FALSE(acl_grants_write(acl(base), 100, std::nullopt));
  EXPECT_TRUE(acl_grants_write(acl({{kUserObj, 6, 0}, {kUser, 6, 1234}, {kGroupObj, 4, 0}, {kMask, 6, 0}, {kOther, 4, 0}}),
                               100, std::nullopt));
  // The mask takes write away from every named entry.
  EXPECT_FALSE(acl_grants_write(
      acl({{kUserObj, 6, 0}, {kUser, 6, 1234}, {kGroupObj, 4, 0}, {kMask, 4, 0}, {kOther, 4, 0}}), 100, std::nullopt));
  EXPECT_TRUE(acl_grants_write(acl({{kUserObj, 6, 0}, {kGroup, 2, 55}, {kGroupObj, 4, 0}, {kOther, 0, 0}}), 100,
                               std::nullopt));
  EXPECT_FALSE(acl_grants_write(acl({{kUserObj, 6, 0}, {kGroup, 2, 55}, {kGroupObj, 4, 0}, {kOther, 0, 0}}), 100,
                                gid_t{55}));
  EXPECT_TRUE(acl_grants_write(acl({{kUserObj, 6, 0}, {kGroupObj, 4, 0}, {kOther, 2, 0}}), 100, std::nullopt));
  // What cannot be parsed is not trusted.
  EXPECT_TRUE(acl_grants_write("", 100, std::nullopt));
  EXPECT_TRUE(acl_grants_write(std::string("\x03\0\0\0", 4), 100, std::nullopt));
  EXPECT_TRUE(acl_grants_write(acl(base) + "x", 100, std::nullopt));
  EXPECT_TRUE(acl_grants_write(acl({{0x40, 2, 0}}), 100, std::nullopt));
}

class LoosePermissionsTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cordon-loose-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ + "/state/deep/er");
    fs::create_directories(root_ + "/outside");
    touch(root_ + "/state/legacy", 0666);  // loose before the launch: the operator's own choice
    // The launch: after every change above, by the file system's own clock.
    const long long before = ctime_ns(root_ + "/state/legacy");
    const std::string tick = root_ + "/tick";
    for (int i = 0; i < 2000; ++i) {
      touch(tick, 0600);
      if (ctime_ns(tick) > before) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_GT(ctime_ns(tick), before);
    baseline_.since_ns = before + 1;
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string root_;
  PermissionBaseline baseline_;
};

TEST_F(LoosePermissionsTree, WhatTheSessionLoosenedIsTightenedTheRestIsLeft) {
  touch(root_ + "/state/file", 0666);
  touch(root_ + "/state/deep/er/tool", 04777);
  ASSERT_EQ(::chmod((root_ + "/state/deep").c_str(), 0777), 0);
  touch(root_ + "/state/fine", 0644);
  touch(root_ + "/outside/target", 0666);
  fs::create_symlink(root_ + "/outside/target", root_ + "/state/link");
  baseline_.roots = {{root_ + "/state", true}};

  FootholdAudit audit = reset_loose_permissions(baseline_);
  EXPECT_TRUE(audit.problems.empty()) << audit.problems.front();
  EXPECT_EQ(mode_of(root_ + "/state/file"), 0644u);
  EXPECT_EQ(mode_of(root_ + "/state/deep"), 0755u);
  EXPECT_EQ(mode_of(root_ + "/state/deep/er/tool"), 0755u);
  EXPECT_EQ(mode_of(root_ + "/state/fine"), 0644u);
  EXPECT_EQ(mode_of(root_ + "/state/legacy"), 0666u) << "loose before the launch: left as it was";
  EXPECT_EQ(mode_of(root_ + "/outside/target"), 0666u) << "a link is never followed";
  ASSERT_EQ(audit.items.size(), 3u);
  for (const auto& item : audit.items) EXPECT_EQ(item.kind, "permissions");
  bool named = false;
  for (const auto& item : audit.items)
    named = named || (item.path == root_ + "/state/file" && item.detail == "mode 0666 -> 0644");
  EXPECT_TRUE(named) << audit.items.front().path << ": " << audit.items.front().detail;
  EXPECT_NE(permission_line(audit.items.front()).find("tightened"), std::string::npos);
}

TEST_F(LoosePermissionsTree, ANonRecursiveRootIsCheckedAloneAndAFileRootToo) {
  ASSERT_EQ(::chmod((root_ + "/state").c_str(), 0777), 0);
  touch(root_ + "/state/file", 0666);
  touch(root_ + "/single", 0666);
  baseline_.roots = {{root_ + "/state", false}, {root_ + "/single", true}, {root_ + "/missing", true}};
  FootholdAudit audit = reset_loose_permissions(baseline_);
  EXPECT_EQ(mode_of(root_ + "/state"), 0755u);
  EXPECT_EQ(mode_of(root_ + "/state/file"), 0666u) << "below a non-recursive root: not walked";
  EXPECT_EQ(mode_of(root_ + "/single"), 0644u);
  EXPECT_EQ(audit.items.size(), 2u);
  EXPECT_TRUE(audit.problems.empty());
}

TEST_F(LoosePermissionsTree, GroupWriteOnThePrivateGroupIsKept) {
  touch(root_ + "/state/file", 0664);
  baseline_.roots = {{root_ + "/state", true}};
  struct stat st {};
  ASSERT_EQ(::stat((root_ + "/state/file").c_str(), &st), 0);
  baseline_.private_group = st.st_gid;
  EXPECT_TRUE(reset_loose_permissions(baseline_).items.empty());
  EXPECT_EQ(mode_of(root_ + "/state/file"), 0664u);
  baseline_.private_group.reset();
  EXPECT_EQ(reset_loose_permissions(baseline_).items.size(), 1u);
  EXPECT_EQ(mode_of(root_ + "/state/file"), 0644u);
}

TEST_F(LoosePermissionsTree, AnAclGrantingAnotherUserWriteIsRemoved) {
  touch(root_ + "/state/file", 0600);
  const std::string value = acl({{kUserObj, 6, 0}, {kUser, 6, 4242}, {kGroupObj, 0, 0}, {kMask, 6, 0}, {kOther, 0, 0}});
  if (::setxattr((root_ + "/state/file").c_str(), "system.posix_acl_access", value.data(), value.size(), 0) != 0)
    GTEST_SKIP() << "no POSIX ACLs on " << root_ << ": " << std::strerror(errno);
  baseline_.roots = {{root_ + "/state", true}};
  FootholdAudit audit = reset_loose_permissions(baseline_);
  ASSERT_EQ(audit.items.size(), 1u);
  EXPECT_NE(audit.items[0].detail.find("ACL"), std::string::npos) << audit.items[0].detail;
  char buffer[256];
  EXPECT_LT(::getxattr((root_ + "/state/file").c_str(), "system.posix_acl_access", buffer, sizeof buffer), 0);
  EXPECT_EQ(mode_of(root_ + "/state/file") & 0022, 0u) << std::oct << mode_of(root_ + "/state/file");
}

}  // namespace
}  // namespace cordon
