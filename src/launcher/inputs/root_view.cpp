#include "launcher/inputs/root_view.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

#include "common/system_view.h"
#include "common/unique_fd.h"

namespace cordon {

std::vector<RootEntry> gather_view_roots() {
  std::vector<RootEntry> roots;
  for (const auto& path : system_view_roots()) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      char target[PATH_MAX];
      ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
      if (n > 0) roots.push_back({path, std::string(target, static_cast<size_t>(n))});
    } else if (S_ISDIR(st.st_mode)) {
      roots.push_back({path, ""});
    }
  }
  return roots;
}

namespace {

// One directory, opened relative to its parent without following a link.
void walk(int dir_fd, const std::string& path, int depth, std::vector<PrivateEntry>& out) {
  DIR* dir = ::fdopendir(dir_fd);
  if (!dir) {
    ::close(dir_fd);
    return;
  }
  while (const dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    // Most of /etc is links (alternatives, certificates): the directory entry says so without a
    // stat, and a link is never followed anyway.
    if (name == "." || name == ".." || e->d_type == DT_LNK) continue;
    struct stat st {};
    if (::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISLNK(st.st_mode)) continue;
    std::string child = path + "/" + name;
    if (others_cannot_read(st.st_mode)) {
      out.push_back({child, S_ISDIR(st.st_mode)});
    } else if (S_ISDIR(st.st_mode) && depth > 1) {
      int fd = ::openat(::dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0) walk(fd, child, depth - 1, out);
    }
  }
  ::closedir(dir);
}

}  // namespace

std::vector<PrivateEntry> private_entries(const std::string& dir, int max_depth) {
  std::vector<PrivateEntry> out;
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) walk(fd, dir, max_depth, out);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace cordon
