#include "launcher/inputs/sandbox_access.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

namespace cordon {
namespace {

bool has_effective_capabilities() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capget, &header, data) != 0) return true;  // unknown: ask without them
  return data[0].effective != 0 || data[1].effective != 0;
}

int access_error(const std::string& path, int mode) {
  return ::faccessat(AT_FDCWD, path.c_str(), mode, AT_EACCESS) == 0 ? 0 : errno;
}

}  // namespace

SandboxAccess sandbox_access(const std::string& path, int mode) {
  SandboxAccess access;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    access.owner = st.st_uid;
    access.mode = st.st_mode & 07777;
    if (const passwd* pw = ::getpwuid(st.st_uid)) access.owner_name = pw->pw_name;
  }
  if (!has_effective_capabilities()) {
    access.error = access_error(path, mode);
    return access;
  }
  // Capabilities are per thread in Linux (capset(2) changes only the caller's): a short-lived
  // thread drops its effective set and asks; the launcher's own threads keep theirs.
  std::thread asker([&] {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (::syscall(SYS_capget, &header, data) != 0) {
      access.error = errno;
      return;
    }
    data[0].effective = data[1].effective = 0;
    if (::syscall(SYS_capset, &header, data) != 0) {
      access.error = errno;
      return;
    }
    access.error = access_error(path, mode);
  });
  asker.join();
  return access;
}

}  // namespace cordon
