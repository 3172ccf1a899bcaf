#include "launcher/workspace/scratch.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>

#include "common/error.h"
#include "common/utc_time.h"

namespace cordon {

std::string make_scratch_workspace(const std::string& home) {
  if (home.empty() || home == "/")
    throw Error("--scratch makes its directory in your home, and HOME is not set", "set HOME, or pass --workspace DIR");
  const std::string parent = home + "/" + kScratchParent;
  if (::mkdir(parent.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error(errno_text("creating " + parent, errno), "pass --workspace DIR with a directory of your own");
  // mkdtemp: a name nobody else holds, made 0700 in one step.
  std::string templ = parent + "/" + utc_stamp() + "-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr)
    throw Error(errno_text("creating a scratch workspace in " + parent, errno),
                "pass --workspace DIR with a directory of your own");
  return templ;
}

}  // namespace cordon
