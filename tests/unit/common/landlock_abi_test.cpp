#include "common/landlock_abi.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>

#include "scratch_dir.h"

namespace cordon::landlock {
namespace {

using Names = std::vector<std::string>;

TEST(LandlockAbi, ConstantsAreTheKernelHeaderValues) {
  EXPECT_EQ(kAccessFsExecute, LANDLOCK_ACCESS_FS_EXECUTE);
  EXPECT_EQ(kAccessFsWriteFile, LANDLOCK_ACCESS_FS_WRITE_FILE);
  EXPECT_EQ(kAccessFsReadFile, LANDLOCK_ACCESS_FS_READ_FILE);
  EXPECT_EQ(kAccessFsReadDir, LANDLOCK_ACCESS_FS_READ_DIR);
  EXPECT_EQ(kAccessFsMakeChar, LANDLOCK_ACCESS_FS_MAKE_CHAR);
  EXPECT_EQ(kAccessFsMakeBlock, LANDLOCK_ACCESS_FS_MAKE_BLOCK);
  EXPECT_EQ(kAccessFsMakeSym, LANDLOCK_ACCESS_FS_MAKE_SYM);
  EXPECT_EQ(kAccessFsRefer, LANDLOCK_ACCESS_FS_REFER);
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
  EXPECT_EQ(kAccessFsTruncate, LANDLOCK_ACCESS_FS_TRUNCATE);
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
  EXPECT_EQ(kAccessFsIoctlDev, LANDLOCK_ACCESS_FS_IOCTL_DEV);
#endif
#ifdef LANDLOCK_SCOPE_SIGNAL
  EXPECT_EQ(kScopeAbstractUnixSocket, LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET);
  EXPECT_EQ(kScopeSignal, LANDLOCK_SCOPE_SIGNAL);
#endif
  // The values of the rights the 6.1 header lacks, as the kernel's uapi defines them.
  EXPECT_EQ(kAccessFsTruncate, 0x4000u);
  EXPECT_EQ(kAccessFsIoctlDev, 0x8000u);
  EXPECT_EQ(kScopeAbstractUnixSocket, 0x1u);
  EXPECT_EQ(kScopeSignal, 0x2u);
  EXPECT_EQ(kAccessFsFileRights, 0xc007u);
  // The attributes' layouts as the kernel reads them.
  EXPECT_EQ(sizeof(RulesetAttr), 24u);
  EXPECT_EQ(sizeof(PathBeneathAttr), 12u);
}

TEST(LandlockAbi, HandledFilesystemRightsPerAbi) {
  EXPECT_EQ(handled_fs_for_abi(-1), 0u);
  EXPECT_EQ(handled_fs_for_abi(0), 0u);
  EXPECT_EQ(handled_fs_for_abi(1), 0x1fffu);  // EXECUTE .. MAKE_SYM
  EXPECT_EQ(handled_fs_for_abi(2), 0x3fffu);  // + REFER
  EXPECT_EQ(handled_fs_for_abi(3), 0x7fffu);  // + TRUNCATE
  EXPECT_EQ(handled_fs_for_abi(4), 0x7fffu);  // network rights only
  EXPECT_EQ(handled_fs_for_abi(5), 0xffffu);  // + IOCTL_DEV
  EXPECT_EQ(handled_fs_for_abi(6), 0xffffu);  // scopes only
  EXPECT_EQ(handled_fs_for_abi(7), 0xffffu);  // logging only
  EXPECT_EQ(handled_fs_for_abi(8), 0xffffu);  // a newer kernel: what this code knows
}

TEST(LandlockAbi, ScopesPerAbi) {
  for (int abi = 0; abi <= 5; ++abi) EXPECT_EQ(scopes_for_abi(abi), 0u) << abi;
  EXPECT_EQ(scopes_for_abi(6), 0x3u);
  EXPECT_EQ(scopes_for_abi(7), 0x3u);
}

TEST(LandlockAbi, NamesTheRightsAndScopesInBitOrder) {
  EXPECT_EQ(access_names(kAccessFsIoctlDev | kAccessFsReadFile), (Names{"read_file", "ioctl_dev"}));
  EXPECT_EQ(access_names(0), Names{});
  EXPECT_EQ(access_names(1ULL << 20 | kAccessFsExecute), (Names{"execute", "bit 20"}));
  const Names all = access_names(handled_fs_for_abi(7));
  ASSERT_EQ(all.size(), 16u);
  EXPECT_EQ(all.front(), "execute");
  EXPECT_EQ(all[13], "refer");
  EXPECT_EQ(all[14], "truncate");
  EXPECT_EQ(all.back(), "ioctl_dev");
  EXPECT_EQ(scope_names(scopes_for_abi(6)), (Names{"abstract_unix_socket", "signal"}));
  EXPECT_EQ(scope_names(1ULL << 5), Names{"bit 5"});
}

TEST(LandlockAbi, ListsWhatEachAbiLacks) {
  const std::string scopes = "abstract unix socket and signal scopes (ABI 6)";
  EXPECT_EQ(unavailable_at(0), (Names{"filesystem access rights (ABI 1)", "refer (ABI 2)", "truncate (ABI 3)",
                                      "device ioctl (ABI 5)", scopes}));
  EXPECT_EQ(unavailable_at(1), (Names{"refer (ABI 2)", "truncate (ABI 3)", "device ioctl (ABI 5)", scopes}));
  EXPECT_EQ(unavailable_at(2), (Names{"truncate (ABI 3)", "device ioctl (ABI 5)", scopes}));
  EXPECT_EQ(unavailable_at(3), (Names{"device ioctl (ABI 5)", scopes}));
  EXPECT_EQ(unavailable_at(4), (Names{"device ioctl (ABI 5)", scopes}));
  EXPECT_EQ(unavailable_at(5), Names{scopes});
  EXPECT_EQ(unavailable_at(6), Names{});
  EXPECT_EQ(unavailable_at(7), Names{});
}

// The kernel's release as major * 100 + minor ("6.18.44-..." -> 618).
int kernel_release() {
  utsname u{};
  if (::uname(&u) != 0) return 0;
  int major = 0, minor = 0;
  if (std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return 0;
  return major * 100 + minor;
}

TEST(LandlockAbi, AsksTheKernelAsADirectSyscallDoes) {
  errno = 0;
  const long direct = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  const int direct_errno = direct < 0 ? errno : 0;
  const Support s = landlock_abi();
  if (direct < 0) {
    EXPECT_EQ(s.abi, 0);
    EXPECT_EQ(s.error, direct_errno);
    EXPECT_FALSE(s.problem.empty());
    GTEST_SKIP() << "no Landlock here: " << s.problem;
  }
  EXPECT_EQ(s.abi, direct);
  EXPECT_EQ(s.error, 0);
  EXPECT_EQ(s.problem, "");
  // This machine's kernel (6.18) has ABI 7; so does every release from 6.15 to 6.18.
  const int release = kernel_release();
  if (release >= 615 && release < 619) {
    EXPECT_EQ(s.abi, 7) << release;
  } else if (release >= 619) {
    EXPECT_GE(s.abi, 7) << release;
  }
}

// The wrappers end to end, in a child (the domain is for good): a ruleset handling READ_FILE
// with one rule lets the child read in the scratch directory and nowhere else.
TEST(LandlockAbi, WrappersMakeAndEnforceARuleset) {
  const Support s = landlock_abi();
  if (s.abi < 1) GTEST_SKIP() << s.problem;
  testing::ScratchDir dir;
  const std::string inside = dir.path() + "/inside";
  std::ofstream(inside) << "x";

  FdResult bad = create_ruleset({1ULL << 40, 0, 0});  // an unknown right
  EXPECT_FALSE(bad.fd.valid());
  EXPECT_EQ(bad.error, EINVAL);
  FdResult ruleset = create_ruleset({kAccessFsReadFile, 0, 0});
  ASSERT_TRUE(ruleset.fd.valid()) << ruleset.error;
  EXPECT_EQ(ruleset.error, 0);
  UniqueFd path(::open(dir.path().c_str(), O_PATH | O_CLOEXEC));
  ASSERT_TRUE(path.valid());
  EXPECT_EQ(add_path_rule(ruleset.fd.get(), path.get(), kAccessFsWriteFile), EINVAL);  // not handled
  EXPECT_EQ(add_path_rule(ruleset.fd.get(), -1, kAccessFsReadFile), EBADF);
  EXPECT_EQ(add_path_rule(ruleset.fd.get(), path.get(), kAccessFsReadFile), 0);
  EXPECT_EQ(restrict_self(-1), EBADF);

  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ::_exit(10);
    if (restrict_self(ruleset.fd.get()) != 0) ::_exit(11);
    if (::open(inside.c_str(), O_RDONLY) < 0) ::_exit(12);
    errno = 0;
    if (::open("/etc/passwd", O_RDONLY) >= 0 || errno != EACCES) ::_exit(13);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: prctl, 11: restrict_self, 12: inside denied, 13: outside allowed";
}

}  // namespace
}  // namespace cordon::landlock
