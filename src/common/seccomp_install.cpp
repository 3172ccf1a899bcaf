#include "common/seccomp_install.h"

#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace cordon::seccomp {

int install_program(const std::vector<sock_filter>& program) {
  if (program.empty() || program.size() > 0xFFFF) return EINVAL;
  // Without no_new_privs only CAP_SYS_ADMIN may install a filter; with it, nothing the process
  // runs could gain privileges the filter would then constrain (the kernel's own rule).
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  sock_fprog prog{static_cast<unsigned short>(program.size()), const_cast<sock_filter*>(program.data())};
  return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ? 0 : errno;
}

}  // namespace cordon::seccomp
