#include "launcher/terminal/operator_terminal.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "common/error.h"

namespace cordon::terminal {
namespace {

int first_terminal(unsigned fds) {
  for (int fd = 0; fd < 3; ++fd)
    if (fds & (1U << fd)) return fd;
  return -1;
}

}  // namespace

OperatorTerminal::OperatorTerminal(unsigned fds) : relays_input_((fds & 3U) == 3U) {
  const int original = first_terminal(fds);
  if (original < 0) throw Error("no terminal to relay", "");
  // A description of our own, so O_NONBLOCK stays ours. A terminal owned by another user
  // (after `su`) cannot be reopened: then the shared description is made non-blocking for the
  // session and put back afterwards (by the terminal keeper too, if cordon is killed).
  std::string path = "/proc/self/fd/" + std::to_string(original);
  fd_ = UniqueFd(::open(path.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK));
  if (!fd_.valid()) {
    fd_ = UniqueFd(::fcntl(original, F_DUPFD_CLOEXEC, 3));
    if (!fd_.valid()) throw Error(errno_text("duplicating the terminal", errno), "");
    restore_flags_ = ::fcntl(fd_.get(), F_GETFL);
    ::fcntl(fd_.get(), F_SETFL, restore_flags_ | O_NONBLOCK);
  }
  if (::tcgetattr(fd_.get(), &saved_) != 0)
    throw Error(errno_text("reading the terminal's settings (tcgetattr)", errno),
                "set [terminal] private = false in the configuration to run without the private terminal");
}

OperatorTerminal::~OperatorTerminal() { give_back(); }

winsize OperatorTerminal::size() const {
  winsize ws{};
  if (::ioctl(fd_.get(), TIOCGWINSZ, &ws) != 0) ws = winsize{24, 80, 0, 0};
  return ws;
}

void OperatorTerminal::claim() {
  if (restore_flags_ >= 0 && !nonblocking_) ::fcntl(fd_.get(), F_SETFL, restore_flags_ | O_NONBLOCK);
  nonblocking_ = true;
  if (!relays_input_ || raw_) return;
  termios raw = saved_;
  ::cfmakeraw(&raw);
  if (::tcsetattr(fd_.get(), TCSADRAIN, &raw) == 0) raw_ = true;
}

void OperatorTerminal::give_back() {
  if (!fd_.valid()) return;
  if (raw_) {
    int r;
    do r = ::tcsetattr(fd_.get(), TCSADRAIN, &saved_);
    while (r != 0 && errno == EINTR);
    raw_ = false;
  }
  if (restore_flags_ >= 0 && nonblocking_) ::fcntl(fd_.get(), F_SETFL, restore_flags_);
  nonblocking_ = false;
}

}  // namespace cordon::terminal
