#include "launcher/review/layer_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

#include "common/error.h"
#include "common/text.h"
#include "launcher/review/beneath.h"

namespace cordon::review {
namespace {

EntryState state_of(const struct stat& st) {
  EntryState e;
  e.exists = true;
  e.mode = st.st_mode;
  e.size = static_cast<uint64_t>(st.st_size);
  e.dev = st.st_dev;
  e.ino = st.st_ino;
  e.nlink = st.st_nlink;
  e.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  return e;
}

}  // namespace

std::string read_layer_file(int root_fd, const std::string& relative, const EntryState& expected) {
  UniqueFd fd = open_beneath(root_fd, relative, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0)
    throw Error(errno_text("reading " + terminal_safe(relative), errno), "run the command again");
  if (!S_ISREG(st.st_mode) || st.st_ino != expected.ino || st.st_dev != expected.dev ||
      static_cast<uint64_t>(st.st_size) != expected.size)
    throw Error(terminal_safe(relative) + " changed while it was being reviewed", "run the command again");
  if (expected.size > kMaxReviewedFileBytes)
    throw Error(terminal_safe(relative) + " is larger than " + std::to_string(kMaxReviewedFileBytes >> 20) + " MiB",
                "leave it out (PATH arguments) and copy it by hand after looking at it");
  std::string bytes(static_cast<size_t>(expected.size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pread(fd.get(), bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(terminal_safe(relative) + " changed while it was being reviewed", "run the command again");
    done += static_cast<size_t>(n);
  }
  return bytes;
}

EntryState entry_now(int root_fd, const std::string& relative) {
  ParentAndName at = open_parent_beneath(root_fd, relative);
  if (!at.parent.valid()) {
    if (errno == ENOENT || errno == ENOTDIR) return {};
    throw Error(
        errno_text("looking up " + terminal_safe(relative) + " (a directory on its path is a symlink or a mount)",
                   errno),
        "restore the directory or leave the path out");
  }
  struct stat st {};
  if (::fstatat(at.parent.get(), at.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return {};
    throw Error(errno_text("reading " + terminal_safe(relative), errno), "run the command again");
  }
  EntryState e = state_of(st);
  if (S_ISLNK(st.st_mode)) {
    char target[PATH_MAX];
    const ssize_t n = ::readlinkat(at.parent.get(), at.name.c_str(), target, sizeof target);
    if (n >= 0) e.link_target.assign(target, static_cast<size_t>(n));
  }
  return e;
}

}  // namespace cordon::review
