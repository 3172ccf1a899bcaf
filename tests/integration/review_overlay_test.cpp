// Review mode's overlay (review/review_overlay.h) on the real kernel, as root and as an
// ordinary user: mounted in a mount namespace of its own over a pinned workspace, writes,
// renames and deletions land in the upper layer and the host workspace is unchanged; a
// workspace replaced between pinning and mounting is refused.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>

#include "common/error.h"
#include "launcher/process/session_init.h"
#include "launcher/review/review_overlay.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

class ReviewOverlay : public ::testing::TestWithParam<bool> {  // as an ordinary user?
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create the test user";
    dir_ = std::make_unique<TempDir>("/var/tmp/cordon-review-");
    ::chmod(dir_->path().c_str(), 0755);
    for (const char* d : {"/ws/src", "/upper", "/work"}) fs::create_directories(dir_->path() + d);
    write_file(dir_->path() + "/ws/keep.txt", "host\n");
    write_file(dir_->path() + "/ws/src/gone.txt", "delete me\n");
    if (GetParam()) {
      auto user = unprivileged_identity();
      ASSERT_TRUE(user);
      user_ = *user;
      chown_tree(dir_->path(), user_.uid, user_.gid);
    }
  }

  // In a forked child (as the user when the parameter says so): a user and mount namespace
  // (only a mount namespace for root), then `body` with the overlay's root. The child's exit
  // status: 0 when `body` returned true; 3 when mounting threw, with its message in `error`.
  int in_overlay(const std::function<bool(int root)>& body, const std::function<void()>& before_mount = {}) {
    int pipefd[2];
    EXPECT_EQ(::pipe(pipefd), 0);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(pipefd[0]);
      // Nothing may return into gtest from here: every failure is an exit status.
      try {
        child(pipefd[1], body, before_mount);
      } catch (...) {
      }
      ::_exit(20);
    }
    ::close(pipefd[1]);
    char buffer[1024];
    ssize_t n = ::read(pipefd[0], buffer, sizeof buffer);
    error_ = n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "";
    ::close(pipefd[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  [[noreturn]] void child(int error_fd, const std::function<bool(int root)>& body,
                          const std::function<void()>& before_mount) {
    {
      // A process that changed its uid is not dumpable, and could not write its own id maps.
      if (GetParam() && (::setgid(user_.gid) != 0 || ::setuid(user_.uid) != 0 ||
                         ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0))
        ::_exit(10);
      review::OverlayLayers layers;
      layers.workspace_fd = ::open((dir_->path() + "/ws").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      layers.upper_fd = ::open((dir_->path() + "/upper").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      layers.work_fd = ::open((dir_->path() + "/work").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      layers.user_xattr = GetParam();
      if (before_mount) before_mount();
      const uid_t uid = ::getuid();
      const gid_t gid = ::getgid();
      if (::unshare(GetParam() ? CLONE_NEWUSER | CLONE_NEWNS : CLONE_NEWNS) != 0) ::_exit(11);
      if (GetParam()) map_own_ids(uid, gid);
      if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) ::_exit(12);
      try {
        UniqueFd root = review::mount_review_overlay(layers);
        ::_exit(body(root.get()) ? 0 : 1);
      } catch (const Error& e) {
        std::string text = e.what();
        ssize_t ignored = ::write(error_fd, text.data(), text.size());
        (void)ignored;
        ::_exit(3);
      }
    }
  }

  std::unique_ptr<TempDir> dir_;
  Identity user_;
  std::string error_;
};

TEST_P(ReviewOverlay, WritesRenamesAndDeletionsLandInTheUpperLayerOnly) {
  int status = in_overlay([](int root) {
    int fd = ::openat(root, "new.txt", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    bool ok = fd >= 0 && ::write(fd, "agent\n", 6) == 6;
    ::close(fd);
    fd = ::openat(root, "keep.txt", O_WRONLY | O_APPEND | O_CLOEXEC);
    ok = ok && fd >= 0 && ::write(fd, "edited\n", 7) == 7;
    ::close(fd);
    ok = ok && ::unlinkat(root, "src/gone.txt", 0) == 0;
    ok = ok && ::renameat(root, "new.txt", root, "src/moved.txt") == 0;
    // Through the overlay, the session sees its own tree.
    struct stat st {};
    ok = ok && ::fstatat(root, "src/gone.txt", &st, 0) != 0 && ::fstatat(root, "src/moved.txt", &st, 0) == 0;
    return ok;
  });
  ASSERT_EQ(status, 0) << error_;
  // The host workspace is as it was.
  EXPECT_EQ(read_file(dir_->path() + "/ws/keep.txt"), "host\n");
  EXPECT_EQ(read_file(dir_->path() + "/ws/src/gone.txt"), "delete me\n");
  EXPECT_FALSE(path_exists(dir_->path() + "/ws/new.txt"));
  EXPECT_FALSE(path_exists(dir_->path() + "/ws/src/moved.txt"));
  // The upper layer holds the changes: the edited copy, the moved file, a whiteout (0:0).
  EXPECT_EQ(read_file(dir_->path() + "/upper/keep.txt"), "host\nedited\n");
  EXPECT_EQ(read_file(dir_->path() + "/upper/src/moved.txt"), "agent\n");
  struct stat whiteout {};
  ASSERT_EQ(::lstat((dir_->path() + "/upper/src/gone.txt").c_str(), &whiteout), 0);
  EXPECT_TRUE(S_ISCHR(whiteout.st_mode) && whiteout.st_rdev == 0) << std::oct << whiteout.st_mode;
}

// The workspace removed after it was pinned and another directory made at its path: the
// overlay is refused, naming the change, and nothing is written. (A workspace merely renamed
// stays the pinned directory: the overlay goes over it wherever it now is.)
TEST_P(ReviewOverlay, AWorkspaceReplacedAfterItWasPinnedIsRefused) {
  const std::string ws = dir_->path() + "/ws";
  int status = in_overlay([](int) { return true; },
                          [&] {
                            fs::remove_all(ws);
                            ::mkdir(ws.c_str(), 0755);
                          });
  EXPECT_EQ(status, 3);
  EXPECT_NE(error_.find("the workspace changed while the session was being set up"), std::string::npos) << error_;
  EXPECT_TRUE(fs::is_empty(dir_->path() + "/upper"));
}

INSTANTIATE_TEST_SUITE_P(AsRootAndAsAUser, ReviewOverlay, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? std::string("User") : std::string("Root"); });

}  // namespace
}  // namespace cordon::testing
