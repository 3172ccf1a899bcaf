// Check 33: the second filesystem layer is in force. Measured, not read from the intent: the
// launcher binds a sentinel the mounts let anyone read and no Landlock rule grants
// (common/intent.h kLandlockSentinelPath), so it opens only where no ruleset is in force; a
// file made in bwrap's /dev, which the mounts allow and the rules do not, must be refused the
// same way; and with the signal scope, bwrap's pid 1 (outside the domain) cannot be signalled.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "battery/check.h"
#include "battery/sys.h"
#include "common/landlock_abi.h"
#include "common/unique_fd.h"

namespace cordon::battery {
namespace {

constexpr const char* kMechanism = "Landlock ruleset from the plan (libexec/cordon-landlock before the command)";

// The sentinel opened for reading: "" when refused as a ruleset refuses, else what happened.
std::string sentinel_problem() {
  struct stat st {};
  if (::lstat(kLandlockSentinelPath, &st) != 0)
    return std::string("cannot measure: the launcher's sentinel ") + kLandlockSentinelPath + " is missing (" +
           errno_name(errno) + ")";
  if (!S_ISREG(st.st_mode) || (st.st_mode & S_IROTH) == 0)
    return std::string("cannot measure: ") + kLandlockSentinelPath + " is not a file anyone may read";
  UniqueFd fd(::open(kLandlockSentinelPath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.valid()) return std::string(kLandlockSentinelPath) + " opened for reading: no Landlock ruleset in force";
  if (errno != EACCES)
    return std::string("cannot measure: opening ") + kLandlockSentinelPath + " failed with " + errno_name(errno) +
           ", not the ruleset's EACCES";
  return "";
}

// A file made in /dev, when the mounts and the file modes would allow it: "" when refused with
// EACCES or not judged (*note says which), else the problem.
std::string create_problem(std::string& note) {
  if (!writable("/dev")) {
    note += ", create in /dev not judged (the mounts refuse it)";
    return "";
  }
  const std::string path = "/dev/.cordon-landlock-create-" + std::to_string(::getpid());
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (fd.valid()) {
    ::unlink(path.c_str());
    return "a file was created in /dev, which no rule grants: no Landlock ruleset in force";
  }
  if (errno != EACCES) return "creating a file in /dev failed with " + errno_name(errno) + ", not the ruleset's EACCES";
  note += ", create in /dev EACCES";
  return "";
}

}  // namespace

Outcome check_landlock(const Context& c) {
  if (!c.session) return fail(std::string(kNoSession) + ": cannot tell whether a Landlock ruleset was meant");
  const LandlockIntent& l = c.session->landlock;
  if (!l.applied)
    return warn("ONE FILESYSTEM LAYER: no Landlock ruleset (" + (l.why_not.empty() ? l.mode : l.why_not) +
                    "); the mounts alone hold the filesystem promise",
                "none: Landlock not applied");
  const landlock::Support kernel = landlock::landlock_abi();
  std::string note = "ABI " + std::to_string(l.abi) + " (kernel " + std::to_string(kernel.abi) + ")";
  if (std::string problem = sentinel_problem(); !problem.empty()) return fail(problem);
  note += ": sentinel EACCES";
  if (std::string problem = create_problem(note); !problem.empty()) return fail(problem);
  if (l.scoped("signal")) {
    // bwrap's pid 1 started before the ruleset: outside the domain, so the scope refuses it.
    if (::kill(1, 0) == 0) return fail("kill(1, 0) succeeded: no signal scope in force");
    if (errno != EPERM) return fail("kill(1, 0) failed with " + errno_name(errno) + ", not the scope's EPERM");
    note += ", kill(1, 0) EPERM";
  }
  if (!l.unavailable.empty()) return warn(note + "; not on this kernel: " + join_some(l.unavailable, 8), kMechanism);
  return pass(note + "; every right of ABI " + std::to_string(l.abi), kMechanism);
}

}  // namespace cordon::battery
