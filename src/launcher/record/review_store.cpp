#include "launcher/record/review_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>

#include "common/error.h"
#include "common/text.h"
#include "launcher/inputs/state_dirs.h"
#include "launcher/record/record_file.h"
#include "launcher/review/review_changes.h"
#include "launcher/review/review_overlay.h"

namespace cordon::review {
namespace {

std::string reviews_root(const std::string& sessions_dir) { return state_dir_of(sessions_dir) + "/reviews"; }

std::string listed(const std::vector<std::string>& ids) {
  if (ids.empty()) return "none";
  std::string out;
  for (size_t i = ids.size(); i-- > 0 && ids.size() - i <= 10;) out += (out.empty() ? "" : ", ") + ids[i];
  return out + (ids.size() > 10 ? ", ..." : "");
}

// The directory entries of `dir_fd` (a directory opened O_RDONLY), "." and ".." left out.
std::vector<std::string> entries_of(int dir_fd) {
  std::vector<std::string> names;
  int copy = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  DIR* d = copy >= 0 ? ::fdopendir(copy) : nullptr;
  if (!d) {
    if (copy >= 0) ::close(copy);
    return names;
  }
  while (dirent* entry = ::readdir(d)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  return names;
}

// A directory beneath `parent_fd`, opened for listing; a mode-0 directory (overlayfs's
// work/work) is opened up first: only its owner removes it.
UniqueFd open_for_removal(int parent_fd, const std::string& name) {
  UniqueFd dir(::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir.valid() && errno == EACCES && ::fchmodat(parent_fd, name.c_str(), 0700, 0) == 0)
    dir = UniqueFd(::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  return dir;
}

constexpr int kMaxRemovalDepth = 32;  // deeper directories are moved up and removed later

// Empties `dir_fd`; directories deeper than kMaxRemovalDepth are renamed into `top_fd` under
// a fresh name and queued, so descriptors stay bounded whatever the depth.
void empty_directory(int dir_fd, int top_fd, int depth, std::deque<std::string>& queued, size_t& moved,
                     const std::string& shown) {
  for (const std::string& name : entries_of(dir_fd)) {
    if (::unlinkat(dir_fd, name.c_str(), 0) == 0 || errno == ENOENT) continue;
    if (errno != EISDIR && errno != EPERM)
      throw Error(errno_text("removing an entry of " + terminal_safe(shown), errno), "remove it by hand");
    if (depth >= kMaxRemovalDepth) {
      const std::string flat = ".cordon-deep-" + std::to_string(moved++);
      if (::renameat(dir_fd, name.c_str(), top_fd, flat.c_str()) != 0)
        throw Error(errno_text("removing a deep directory of " + terminal_safe(shown), errno), "remove it by hand");
      queued.push_back(flat);
      continue;
    }
    UniqueFd child = open_for_removal(dir_fd, name);
    if (!child.valid())
      throw Error(errno_text("opening a directory of " + terminal_safe(shown), errno), "remove it by hand");
    empty_directory(child.get(), top_fd, depth + 1, queued, moved, shown);
    if (::unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR) != 0)
      throw Error(errno_text("removing a directory of " + terminal_safe(shown), errno), "remove it by hand");
  }
}

}  // namespace

std::vector<std::string> review_ids(const std::string& sessions_dir) {
  std::vector<std::string> ids;
  UniqueFd root(::open(reviews_root(sessions_dir).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!root.valid()) return ids;
  for (const std::string& name : entries_of(root.get()))
    if (is_session_id(name)) ids.push_back(name);
  std::sort(ids.begin(), ids.end());
  return ids;
}

ReviewBase read_review_base(const std::string& dir) {
  const std::string path = dir + "/base.json";
  std::string problem;
  std::optional<std::string> text = read_record(path, &problem);
  if (!text)
    throw Error("the review's base is unreadable: " + terminal_safe(problem), "`cordon discard` removes the review");
  ReviewBase base = parse_review_base(*text, path);
  if (std::optional<std::string> xattrs = read_record(dir + "/" + kOverlayXattrsFile, nullptr))
    base.overlay_xattrs = trim(*xattrs);
  return base;
}

CollectLimits collect_limits(const ReviewBase& base) {
  CollectLimits limits;
  if (base.overlay_xattrs == "user") limits.overlay_xattrs = OverlayXattrs::User;
  if (base.overlay_xattrs == "trusted") limits.overlay_xattrs = OverlayXattrs::Trusted;
  return limits;
}

StoredReview find_review(const std::string& sessions_dir, const std::string& id, const std::string& cwd) {
  const std::vector<std::string> ids = review_ids(sessions_dir);
  if (!id.empty()) {
    if (std::find(ids.begin(), ids.end(), id) == ids.end())
      throw Error("no pending review " + terminal_safe(id) + " in " + terminal_safe(reviews_root(sessions_dir)) +
                      "; pending reviews: " + listed(ids),
                  "name one of them with --session, or see `cordon sessions list`", kExitConfigError);
    const std::string dir = reviews_root(sessions_dir) + "/" + id;
    return {id, dir, read_review_base(dir)};
  }
  // The workspace is `cwd` or the directory above it the review names, by identity.
  std::vector<std::pair<dev_t, ino_t>> here;
  for (std::string at = cwd; !at.empty();) {
    struct stat st {};
    if (::stat(at.c_str(), &st) == 0) here.emplace_back(st.st_dev, st.st_ino);
    if (at == "/") break;
    const size_t slash = at.rfind('/');
    at = slash == 0 ? "/" : at.substr(0, slash);
  }
  for (size_t i = ids.size(); i-- > 0;) {
    const std::string dir = reviews_root(sessions_dir) + "/" + ids[i];
    try {
      ReviewBase base = read_review_base(dir);
      if (std::find(here.begin(), here.end(), std::pair{base.workspace_dev, base.workspace_ino}) != here.end())
        return {ids[i], dir, base};
    } catch (const Error&) {
      // An unreadable review is not this workspace's; `--session` still reaches it.
    }
  }
  throw Error("no pending review for the workspace " + terminal_safe(cwd) + "; pending reviews: " + listed(ids),
              "run from the workspace of a review-mode session, or name one with --session", kExitConfigError);
}

UniqueFd open_reviewed_workspace(const ReviewBase& base) {
  struct open_how how {};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, base.workspace.c_str(), &how, sizeof how)));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0)
    throw Error(errno_text("the reviewed workspace " + terminal_safe(base.workspace) +
                               " cannot be opened without following a symlink",
                           errno),
                "put the workspace back where the session ran (a real directory, no symlink on its path)");
  if (st.st_dev != base.workspace_dev || st.st_ino != base.workspace_ino)
    throw Error("the reviewed workspace " + terminal_safe(base.workspace) +
                    " is not the directory the session ran in (it was moved or replaced)",
                "put the workspace back where the session ran; nothing was written");
  return fd;
}

UniqueFd open_upper_layer(const std::string& dir) {
  UniqueFd fd(::open((dir + "/upper").c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid())
    throw Error(errno_text("opening the review's upper layer in " + terminal_safe(dir), errno),
                "`cordon discard` removes a broken review");
  return fd;
}

ChangeSet pending_changes(const std::string& dir, const ReviewBase& base) {
  UniqueFd workspace = open_reviewed_workspace(base);
  UniqueFd upper = open_upper_layer(dir);
  return collect_changes(upper.get(), workspace.get(), collect_limits(base));
}

std::string pending_summary(const std::string& sessions_dir, const std::string& id) {
  struct stat st {};
  if (::lstat(review_dir(sessions_dir, id).c_str(), &st) != 0) return "";
  try {
    const std::string dir = review_dir(sessions_dir, id);
    return std::to_string(pending_changes(dir, read_review_base(dir)).size()) + " pending";
  } catch (const Error&) {
    return "unreadable";
  }
}

void remove_review(const std::string& dir) {
  const size_t slash = dir.rfind('/');
  UniqueFd parent(::open(dir.substr(0, slash).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  const std::string name = dir.substr(slash + 1);
  UniqueFd top = parent.valid() ? open_for_removal(parent.get(), name) : UniqueFd();
  if (!top.valid()) {
    if (errno == ENOENT) return;
    throw Error(errno_text("opening " + terminal_safe(dir), errno), "remove it by hand");
  }
  std::deque<std::string> queued;
  size_t moved = 0;
  empty_directory(top.get(), top.get(), 0, queued, moved, dir);
  while (!queued.empty()) {
    const std::string flat = queued.front();
    queued.pop_front();
    UniqueFd child = open_for_removal(top.get(), flat);
    if (child.valid()) empty_directory(child.get(), top.get(), 1, queued, moved, dir);
    if (::unlinkat(top.get(), flat.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
      throw Error(errno_text("removing " + terminal_safe(dir), errno), "remove it by hand");
  }
  if (::unlinkat(parent.get(), name.c_str(), AT_REMOVEDIR) != 0)
    throw Error(errno_text("removing " + terminal_safe(dir), errno), "remove it by hand");
}

}  // namespace cordon::review
