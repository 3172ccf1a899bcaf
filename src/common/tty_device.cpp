#include "common/tty_device.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace cordon {

std::string device_name(dev_t device) { return std::to_string(major(device)) + ":" + std::to_string(minor(device)); }

std::optional<dev_t> terminal_device(int fd) {
  struct stat st {};
  if (!::isatty(fd) || ::fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) return std::nullopt;
  return st.st_rdev;
}

}  // namespace cordon
