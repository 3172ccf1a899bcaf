#include "launcher/review/review_overlay.h"

#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "common/error.h"
#include "common/text.h"

namespace cordon::review {
namespace {

std::string fd_path(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// The directory `pinned` refers to, reached again by its path in this mount namespace, and
// required to be the same directory (device and inode).
UniqueFd reach_again(int pinned, const char* what) {
  char target[4096];
  const ssize_t n = ::readlink(fd_path(pinned).c_str(), target, sizeof target - 1);
  if (n <= 0) throw Error(errno_text(std::string("reading the path of the ") + what, errno), "nothing ran");
  target[n] = '\0';
  UniqueFd here(::open(target, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat before {
  }, now{};
  if (!here.valid() || ::fstat(pinned, &before) != 0 || ::fstat(here.get(), &now) != 0 || before.st_dev != now.st_dev ||
      before.st_ino != now.st_ino)
    throw Error(std::string("the ") + what + " changed while the session was being set up",
                "launch again; nothing ran and the workspace was not touched");
  return here;
}

void configure(int fs, unsigned command, const char* key, const char* value) {
  if (::syscall(SYS_fsconfig, fs, command, key, value, 0) != 0)
    throw Error(errno_text(std::string("configuring the review overlay (") + (key ? key : "create") + ")", errno),
                "review mode needs overlayfs in a user namespace (Linux 5.11 or newer); use [workspace] mode = "
                "\"direct\" on this host");
}

}  // namespace

UniqueFd mount_review_overlay(const OverlayLayers& layers) {
  UniqueFd lower = reach_again(layers.workspace_fd, "workspace");
  UniqueFd upper = reach_again(layers.upper_fd, "review's upper layer");
  UniqueFd work = reach_again(layers.work_fd, "review's work directory");
  UniqueFd fs(static_cast<int>(::syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC)));
  if (!fs.valid())
    throw Error(errno_text("opening overlayfs for the review overlay", errno),
                "review mode needs overlayfs (modprobe overlay); use [workspace] mode = \"direct\" on this host");
  configure(fs.get(), FSCONFIG_SET_STRING, "lowerdir", fd_path(lower.get()).c_str());
  configure(fs.get(), FSCONFIG_SET_STRING, "upperdir", fd_path(upper.get()).c_str());
  configure(fs.get(), FSCONFIG_SET_STRING, "workdir", fd_path(work.get()).c_str());
  if (layers.user_xattr) configure(fs.get(), FSCONFIG_SET_FLAG, "userxattr", nullptr);
  configure(fs.get(), FSCONFIG_SET_STRING, "redirect_dir", "nofollow");
  // Every changed file's data in the upper layer (a module default may turn metacopy on):
  // diff and apply read the upper layer alone, and refuse a metacopy file they find in it.
  configure(fs.get(), FSCONFIG_SET_STRING, "metacopy", "off");
  configure(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr);
  UniqueFd root(static_cast<int>(::syscall(SYS_fsmount, fs.get(), FSMOUNT_CLOEXEC, 0)));
  if (!root.valid()) throw Error(errno_text("mounting the review overlay", errno), "nothing ran");
  // Onto the pinned workspace directory itself: no path lookup between the check and the mount.
  if (::syscall(SYS_move_mount, root.get(), "", lower.get(), "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) !=
      0)
    throw Error(errno_text("attaching the review overlay over the workspace", errno), "nothing ran");
  return root;
}

std::string overlay_problem(const std::string& dir, std::string* made) {
  std::string pattern = dir + "/.overlay-check-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return errno_text("making a directory in " + dir, errno);
  *made = pattern;
  for (const char* layer : {"/lower", "/upper", "/work"})
    if (::mkdir((pattern + layer).c_str(), 0700) != 0) return errno_text("making " + pattern + layer, errno);
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return errno_text("pipe", errno);
  UniqueFd read_end(ends[0]), write_end(ends[1]);
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  const pid_t pid = ::fork();
  if (pid < 0) return errno_text("fork", errno);
  if (pid == 0) {
    // The child: a user and mount namespace of its own, as a session's, then the overlay.
    std::string problem;
    try {
      if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) throw Error(errno_text("unshare(user, mount)", errno));
      const std::string uid_map = std::to_string(uid) + " " + std::to_string(uid) + " 1\n";
      const std::string gid_map = std::to_string(gid) + " " + std::to_string(gid) + " 1\n";
      if (write_control_file("/proc/self/setgroups", "deny") != 0 ||
          write_control_file("/proc/self/uid_map", uid_map) != 0 ||
          write_control_file("/proc/self/gid_map", gid_map) != 0)
        throw Error("writing the user namespace's id maps failed");
      if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        throw Error(errno_text("mount --make-rprivate /", errno));
      OverlayLayers layers;
      UniqueFd lower(::open((pattern + "/lower").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
      UniqueFd upper(::open((pattern + "/upper").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
      UniqueFd work(::open((pattern + "/work").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
      layers.workspace_fd = lower.get();
      layers.upper_fd = upper.get();
      layers.work_fd = work.get();
      mount_review_overlay(layers);
    } catch (const Error& e) {
      problem = e.what();
    }
    if (!problem.empty()) {
      const ssize_t written = ::write(write_end.get(), problem.data(), problem.size());
      (void)written;
    }
    ::_exit(problem.empty() ? 0 : 1);
  }
  write_end.reset();
  std::string problem;
  char buffer[512];
  for (ssize_t n; (n = ::read(read_end.get(), buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    problem.append(buffer, static_cast<size_t>(n));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (problem.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) problem = "the check's child failed";
  return problem;
}

void record_overlay_xattrs(int review_dir_fd, bool user_xattr) {
  UniqueFd file(
      ::openat(review_dir_fd, kOverlayXattrsFile, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  const std::string text = user_xattr ? "user\n" : "trusted\n";
  if (!file.valid() || ::write(file.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    throw Error(errno_text("recording the review overlay's xattr namespace", errno), "nothing ran");
}

}  // namespace cordon::review
