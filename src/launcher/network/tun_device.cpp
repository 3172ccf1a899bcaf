#include "launcher/network/tun_device.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>

#include "common/error.h"
#include "common/unique_fd.h"

namespace cordon::jail {

TunDeviceCheck check_tun_device(const std::string& path) {
  // The device node's permissions decide whether this user can create the tap device.
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd.valid()) {
    int err = errno;
    std::string fix = err == EACCES || err == EPERM
                          ? "make the tun device usable by users: chmod 0666 " + path +
                                " (the usual mode; it grants nothing without CAP_NET_ADMIN in a network namespace)"
                          : "load the tun driver (modprobe tun) and create the device (mkdir -p /dev/net && "
                            "mknod -m 0666 " +
                                path + " c 10 200); in a container pass --device " + path;
    return {errno_text("cannot open " + path, err), fix};
  }
  struct stat st {};
  bool tun = ::fstat(fd.get(), &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 10 && minor(st.st_rdev) == 200;
  if (tun) return {};
  return {path + " is not the tun device (character device 10:200)",
          "recreate it: rm " + path + " && mknod -m 0666 " + path + " c 10 200"};
}

}  // namespace cordon::jail
