#include "common/memfd.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "common/error.h"

namespace cordon {

UniqueFd create_memfd(const std::string& name) {
  UniqueFd fd(::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) throw Error(errno_text("memfd_create(" + name + ")", errno));
  return fd;
}

void seal_and_rewind(int fd, const std::string& name) {
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
    throw Error(errno_text("sealing memfd " + name, errno));
  if (::lseek(fd, 0, SEEK_SET) != 0) throw Error(errno_text("rewinding memfd " + name, errno));
}

UniqueFd sealed_memfd_with(const std::string& name, std::string_view content) {
  UniqueFd fd = create_memfd(name);
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(errno_text("writing memfd " + name, errno));
    }
    done += static_cast<size_t>(n);
  }
  seal_and_rewind(fd.get(), name);
  return fd;
}

}  // namespace cordon
