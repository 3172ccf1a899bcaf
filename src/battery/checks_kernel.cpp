// Kernel-interface checks that need a throw-away child process (fork, no exec): terminal
// injection on a real controlling pty (22) and nested user namespaces (23).
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "battery/check.h"
#include "battery/sys.h"
#include "common/unique_fd.h"

namespace cordon::battery {
namespace {

constexpr int kChildSetupFailed = -1000;

// Runs `probe` in a forked child and returns the int it reports (an errno, 0 for success),
// or kChildSetupFailed. The child only makes async-signal-safe calls and _exits.
template <typename Probe>
int in_child(Probe probe) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return kChildSetupFailed;
  UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  pid_t pid = ::fork();
  if (pid < 0) return kChildSetupFailed;
  if (pid == 0) {
    int result = probe();
    ssize_t ignored = ::write(write_end.get(), &result, sizeof result);
    (void)ignored;
    ::_exit(0);
  }
  write_end.reset();
  int result = kChildSetupFailed;
  ssize_t n;
  do n = ::read(read_end.get(), &result, sizeof result);
  while (n < 0 && errno == EINTR);
  if (n != sizeof result) result = kChildSetupFailed;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return result;
}

}  // namespace

Outcome check_seccomp_tiocsti(const Context& c) {
  std::string seccomp = c.status_value("Seccomp");
  if (seccomp != "2")
    return fail("Seccomp: " + (seccomp.empty() ? std::string("?") : seccomp) + " (no seccomp filter installed)");

  // A new pty whose slave becomes the child's controlling terminal: without a filter the
  // kernel lets a process inject into its own controlling tty, so EPERM can only come from
  // the filter (on a non-controlling tty the kernel itself says EPERM: no evidence).
  UniqueFd master(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!master.valid()) return fail("cannot open /dev/ptmx: " + errno_name(errno) + " (no pty to test on)");
  if (::grantpt(master.get()) != 0 || ::unlockpt(master.get()) != 0)
    return fail("cannot unlock a pty: " + errno_name(errno));
  char slave_name[128];
  if (::ptsname_r(master.get(), slave_name, sizeof slave_name) != 0) return fail("ptsname failed");
  int result = in_child([&]() -> int {
    if (::setsid() < 0) return kChildSetupFailed;
    int fd = ::open(slave_name, O_RDWR | O_CLOEXEC);  // after setsid: becomes the controlling tty
    if (fd < 0) return kChildSetupFailed;
    ::ioctl(fd, TIOCSCTTY, 0);
    // Only a proven controlling terminal makes EPERM evidence.
    pid_t session = 0;
    if (::ioctl(fd, TIOCGSID, &session) != 0 || session != ::getpid()) return kChildSetupFailed;
    char byte = '\n';
    return ::ioctl(fd, TIOCSTI, &byte) == 0 ? 0 : errno;
  });
  if (result == kChildSetupFailed) return fail("could not make a pty the controlling terminal of a test process");
  if (result == 0) return fail("TIOCSTI injected input into a controlling terminal (filter lacks the ioctl rule)");
  if (result == EPERM) return pass("filter active; TIOCSTI on a controlling pty refused with EPERM");
  if (result == EIO)
    return pass("TIOCSTI refused by the kernel with EIO (dev.tty.legacy_tiocsti = 0); the filter did not refuse it",
                "kernel dev.tty.legacy_tiocsti = 0");
  return fail("TIOCSTI on a controlling pty failed with " + errno_name(result) + ", not EPERM");
}

Outcome check_userns_refused(const Context&) {
  int result = in_child([]() -> int { return ::unshare(CLONE_NEWUSER) == 0 ? 0 : errno; });
  if (result == kChildSetupFailed) return fail("could not fork a test process");
  if (result == 0) return fail("a new user namespace was created (nested namespaces reopen kernel attack surface)");
  if (result == EPERM) return pass("unshare(CLONE_NEWUSER): EPERM", "seccomp filter (EPERM)");
  if (result == ENOSPC)
    return pass("unshare(CLONE_NEWUSER): ENOSPC", "user.max_user_namespaces = 0 (bwrap --disable-userns)");
  return pass("unshare(CLONE_NEWUSER): " + errno_name(result));
}

}  // namespace cordon::battery
