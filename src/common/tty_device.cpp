#include "common/tty_device.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/unique_fd.h"

namespace cordon {

std::string device_name(dev_t device) { return std::to_string(major(device)) + ":" + std::to_string(minor(device)); }

std::optional<dev_t> terminal_device(int fd) {
  struct stat st {};
  if (!::isatty(fd) || ::fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) return std::nullopt;
  return st.st_rdev;
}

std::optional<dev_t> controlling_terminal_device() {
  UniqueFd tty(::open("/dev/tty", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC));
  unsigned int encoded = 0;
  if (!tty.valid() || ::ioctl(tty.get(), TIOCGDEV, &encoded) != 0) return std::nullopt;
  return makedev((encoded >> 8) & 0xfffU, (encoded & 0xffU) | ((encoded >> 12) & 0xfff00U));
}

}  // namespace cordon
