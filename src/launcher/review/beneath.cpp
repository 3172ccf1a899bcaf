#include "launcher/review/beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace cordon::review {

UniqueFd open_beneath(int root_fd, const std::string& relative, int flags, mode_t mode) {
  struct open_how how {};
  how.flags = static_cast<unsigned long long>(flags | O_CLOEXEC);
  how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
  const char* path = relative.empty() ? "." : relative.c_str();
  long fd = -1;
  // EAGAIN: a rename elsewhere raced the lookup; the kernel asks for a retry (a few suffice).
  for (int attempt = 0; attempt < 16; ++attempt) {
    fd = ::syscall(SYS_openat2, root_fd, path, &how, sizeof how);
    if (fd >= 0 || errno != EAGAIN) break;
  }
  return UniqueFd(static_cast<int>(fd));
}

ParentAndName open_parent_beneath(int root_fd, const std::string& relative, int flags) {
  const size_t slash = relative.rfind('/');
  ParentAndName result;
  result.name = slash == std::string::npos ? relative : relative.substr(slash + 1);
  result.parent = open_beneath(root_fd, slash == std::string::npos ? "" : relative.substr(0, slash),
                               flags | O_DIRECTORY);
  return result;
}

}  // namespace cordon::review
