#include "launcher/inputs/workspace_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/paths.h"
#include "common/unique_fd.h"

namespace cordon {

int open_beneath(int dir_fd, const std::string& rel, int last_flags) {
  const std::vector<std::string> parts = path_components(rel);
  if (parts.empty()) return ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  UniqueFd at;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    UniqueFd next(
        ::openat(at.valid() ? at.get() : dir_fd, parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      // O_DIRECTORY|O_NOFOLLOW on a link reports ENOTDIR: tell it apart as ELOOP.
      struct stat st {};
      if (::fstatat(at.valid() ? at.get() : dir_fd, parts[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(st.st_mode))
        errno = ELOOP;
      return -1;
    }
    at = std::move(next);
  }
  return ::openat(at.valid() ? at.get() : dir_fd, parts.back().c_str(), last_flags | O_NOFOLLOW | O_CLOEXEC);
}

EntryKind WorkspaceTree::kind(const std::string& rel) const {
  UniqueFd root(::open(workspace_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return EntryKind::Missing;
  UniqueFd fd(open_beneath(root.get(), rel, O_PATH));
  if (!fd.valid()) return errno == ELOOP ? EntryKind::Symlink : EntryKind::Missing;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return EntryKind::Missing;
  if (S_ISLNK(st.st_mode)) return EntryKind::Symlink;  // O_PATH|O_NOFOLLOW opens the link itself
  if (S_ISDIR(st.st_mode)) return EntryKind::Directory;
  return S_ISREG(st.st_mode) ? EntryKind::File : EntryKind::Other;
}

std::vector<std::string> WorkspaceTree::list(const std::string& rel) const {
  std::vector<std::string> names;
  UniqueFd root(::open(workspace_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return names;
  // The workspace itself ("") is listed through a readable descriptor of its own (the root's is
  // O_PATH, which readdir cannot use).
  int fd = rel.empty() ? ::openat(root.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                       : open_beneath(root.get(), rel, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return names;
  DIR* dir = ::fdopendir(fd);
  if (!dir) {
    ::close(fd);
    return names;
  }
  while (const dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::string WorkspaceTree::read(const std::string& rel) const {
  UniqueFd root(::open(workspace_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return "";
  UniqueFd fd(open_beneath(root.get(), rel, O_RDONLY | O_NONBLOCK));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::string text(4096, '\0');  // a .git file or commondir is one short line
  ssize_t n = ::read(fd.get(), text.data(), text.size());
  text.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return text;
}

EntryKind RecordingTree::kind(const std::string& rel) const { return snapshot_.kinds[rel] = tree_.kind(rel); }

std::vector<std::string> RecordingTree::list(const std::string& rel) const {
  return snapshot_.lists[rel] = tree_.list(rel);
}

std::string RecordingTree::read(const std::string& rel) const { return snapshot_.texts[rel] = tree_.read(rel); }

EntryKind SnapshotTree::kind(const std::string& rel) const {
  auto it = snapshot_.kinds.find(rel);
  return it == snapshot_.kinds.end() ? EntryKind::Missing : it->second;
}

std::vector<std::string> SnapshotTree::list(const std::string& rel) const {
  auto it = snapshot_.lists.find(rel);
  return it == snapshot_.lists.end() ? std::vector<std::string>{} : it->second;
}

std::string SnapshotTree::read(const std::string& rel) const {
  auto it = snapshot_.texts.find(rel);
  return it == snapshot_.texts.end() ? std::string{} : it->second;
}

}  // namespace cordon
