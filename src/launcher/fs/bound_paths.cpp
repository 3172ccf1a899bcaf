#include "launcher/fs/bound_paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <sstream>

#include "common/error.h"

namespace cordon {
namespace {

Error changed(const BoundPath& bound, const std::string& why) {
  return Error(bound.dest + " (" + bound.source + ") " + why + " since cordon checked it: nothing was launched",
               "launch again; if it repeats, something is replacing " + bound.source +
                   " (a link or a rename) while cordon starts");
}

}  // namespace

UniqueFd open_bound_path(const BoundPath& bound) {
  UniqueFd at(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!at.valid()) throw Error(errno_text("open /", errno));
  std::stringstream parts(bound.source);
  std::string part;
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    // O_NOFOLLOW with O_PATH opens a symbolic link itself, so fstat sees it and refuses.
    UniqueFd next(::openat(at.get(), part.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!next.valid() || ::fstat(next.get(), &st) != 0) throw changed(bound, errno_text("cannot be opened", errno));
    if (S_ISLNK(st.st_mode)) throw changed(bound, "has a symbolic link at " + part);
    at = std::move(next);
  }
  // Renamed while it was walked? The descriptor must still be at the checked path.
  char target[PATH_MAX];
  const std::string link = "/proc/self/fd/" + std::to_string(at.get());
  ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
  if (n <= 0 || std::string(target, static_cast<size_t>(n)) != bound.source) throw changed(bound, "moved");
  return at;
}

}  // namespace cordon
