#include "launcher/process/pidfd.h"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <sstream>
#include <string>

#include "common/error.h"
#include "common/text.h"

namespace cordon {
namespace {

long long now_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace

int pidfd_open(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

int pidfd_signal(int pidfd, int signal) {
  return static_cast<int>(::syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0));
}

bool wait_readable(int fd, int timeout_ms) {
  long long deadline = now_ms() + timeout_ms;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    long long left = deadline - now_ms();
    int r = ::poll(&p, 1, left < 0 ? 0 : static_cast<int>(left));
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) throw Error(errno_text("poll", errno));
  }
}

bool wait_exiting(int pidfd, pid_t pid, int timeout_ms) {
  constexpr unsigned long kPfExiting = 0x4;
  const std::string stat_path = "/proc/" + std::to_string(pid) + "/stat";
  for (int waited = 0; waited <= timeout_ms; ++waited) {
    pollfd p{pidfd, POLLIN, 0};
    if (::poll(&p, 1, waited == 0 ? 0 : 1) > 0) return true;
    std::string stat = read_text_file(stat_path);
    auto paren = stat.rfind(')');
    if (paren == std::string::npos) return true;  // gone from /proc
    // After "comm)": state ppid pgrp session tty_nr tpgid flags ...
    std::istringstream fields(stat.substr(paren + 2));
    std::string field;
    unsigned long flags = 0;
    for (int i = 0; i <= 6 && fields >> field; ++i)
      if (i == 6) flags = std::strtoul(field.c_str(), nullptr, 10);
    if (flags & kPfExiting) return true;
  }
  return false;
}

}  // namespace cordon
