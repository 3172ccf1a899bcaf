// Whether the sandbox's identity could reach a host path as the session will: the launcher's
// uid and groups with no capability at all (bwrap --cap-drop ALL). Root launching in a
// directory another user owns keeps DAC override outside but not inside, so its own access()
// is no answer; the kernel's answer for a thread without capabilities is.
#pragma once

#include <sys/types.h>

#include <string>

namespace cordon {

struct SandboxAccess {
  int error = 0;    // 0 = granted, else errno of faccessat (EACCES, EROFS, ...)
  uid_t owner = 0;  // the path's owner and mode, for the message
  mode_t mode = 0;
  std::string owner_name;  // the owner's account name ("" = none)
};

// faccessat(path, mode, AT_EACCESS) on a thread that dropped every effective capability (only
// when this process has any: otherwise on this thread). Side effect free for the process.
SandboxAccess sandbox_access(const std::string& path, int mode);

}  // namespace cordon
