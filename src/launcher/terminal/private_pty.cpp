#include "launcher/terminal/private_pty.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

#include "common/error.h"

namespace cordon::terminal {

PrivatePty::PrivatePty(const termios& settings, const winsize& size) {
  const char* fix =
      "check that /dev/ptmx and /dev/pts are there (mount -t devpts devpts /dev/pts), or set "
      "[terminal] private = false in the configuration";
  master_ = UniqueFd(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!master_.valid()) throw Error(errno_text("opening a pty for the sandbox (/dev/ptmx)", errno), fix);
  if (::unlockpt(master_.get()) != 0) throw Error(errno_text("unlocking the sandbox's pty", errno), fix);
  // The peer through the master itself: no path lookup in /dev/pts that could be raced.
  slave_ = UniqueFd(::ioctl(master_.get(), TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!slave_.valid()) throw Error(errno_text("opening the sandbox's pty (TIOCGPTPEER)", errno), fix);
  ::tcsetattr(slave_.get(), TCSANOW, &settings);
  set_size(size);
  null_ = UniqueFd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null_.valid()) throw Error(errno_text("opening /dev/null", errno), "");
  // The relay never waits on the master.
  ::fcntl(master_.get(), F_SETFL, ::fcntl(master_.get(), F_GETFL) | O_NONBLOCK);
}

void PrivatePty::set_size(const winsize& size) const { ::ioctl(master_.get(), TIOCSWINSZ, &size); }

bool attach_private_pty(int slave, int null_fd, unsigned fds, bool stdin_null) {
  // Leaves the operator's session: the operator's terminal is no longer this process's (nor
  // its descendants') controlling terminal, and its signals no longer reach them directly.
  if (::setsid() < 0) return false;
  if (::ioctl(slave, TIOCSCTTY, 0) != 0) return false;
  for (int fd = 0; fd < 3; ++fd) {
    if (!(fds & (1U << fd))) continue;
    const int source = fd == 0 && stdin_null ? null_fd : slave;
    if (::dup2(source, fd) < 0) return false;
  }
  return true;
}

}  // namespace cordon::terminal
