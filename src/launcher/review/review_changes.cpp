#include "launcher/review/review_changes.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/error.h"
#include "common/text.h"
#include "common/unique_fd.h"
#include "launcher/review/beneath.h"

namespace cordon::review {
namespace {

constexpr size_t kCompareChunk = size_t{64} * 1024;     // bytes read from each side at a time
constexpr size_t kDirectoryBuffer = size_t{32} * 1024;  // getdents64 batch
// The longest path handed to one openat2: the kernel refuses PATH_MAX (4096) bytes and more,
// and an upper layer can nest deeper than that, so longer paths are opened in steps.
constexpr size_t kOpenStep = 2048;
constexpr size_t kLookupsBeforeListing = 64;  // see Collector::lower_node

// Linux 6.13's *xattrat calls, numbered alike on every architecture (the unified table); the
// C library's headers may predate them.
constexpr long kSysGetxattrat = 464;
constexpr long kSysListxattrat = 465;
struct XattrArgs {  // struct xattr_args
  uint64_t value;
  uint32_t size;
  uint32_t flags;
};

enum class Layer { Upper, Lower };

// How an upper directory relates to the lower directory at its path.
enum class DirView {
  Merged,     // both exist and merge: a lower name the upper lacks shows unchanged
  Opaque,     // the upper one hides the lower one: a lower name the upper lacks is deleted
  UpperOnly,  // nothing below shows through: every non-directory in it is added
  LowerOnly,  // hidden (whited out or replaced by a non-directory): every non-directory is deleted
};

struct PendingDir {
  std::string path;  // "" for the root
  DirView view;
};

struct OpenDir {
  std::string path;
  UniqueFd fd;
};

// One name in one layer, as statx saw it without following it.
struct Node {
  bool exists = false;
  struct statx st {};
};

bool is_directory(const Node& node) { return node.exists && S_ISDIR(node.st.stx_mode); }

bool is_whiteout(const Node& node) {
  return node.exists && S_ISCHR(node.st.stx_mode) && node.st.stx_rdev_major == 0 && node.st.stx_rdev_minor == 0;
}

std::string child_path(const std::string& parent, const std::string& name) {
  return parent.empty() ? name : parent + "/" + name;
}

// A path for a message: escaped, and "." for the root.
std::string shown(const std::string& path) { return path.empty() ? "." : terminal_safe(path); }

std::string where(Layer layer, const std::string& path) {
  return (layer == Layer::Upper ? "the session's upper layer at " : "the workspace at ") + shown(path);
}

[[noreturn]] void fail_read(Layer layer, const std::string& path, int err) {
  if (layer == Layer::Lower && err == EXDEV) {
    throw Error("review: the workspace holds a mount at " + shown(path) + "; review mode cannot show it",
                "unmount it or use [workspace] mode = \"direct\"");
  }
  std::string fix;
  if (err == ENOENT || err == ENOTDIR || err == ELOOP || err == ESTALE) {
    fix = "it changed while the review read it: run the review again once nothing writes to it";
  } else if (err == EMFILE || err == ENFILE) {
    fix = "close some files (or raise ulimit -n) and run the review again";
  }
  throw Error(errno_text("review: reading " + where(layer, path), err), fix);
}

[[noreturn]] void refuse_foreign_xattr(const std::string& path, const std::string& xattr) {
  throw Error("review: the session's upper layer carries " + terminal_safe(xattr) + " at " + shown(path) +
                  ", an overlay xattr cordon's overlay (metacopy=off, redirect_dir=nofollow) never writes itself",
              "inspect the upper layer by hand (review mode cannot show it), then `cordon discard` the session");
}

// open_beneath for a path of any length: in steps of at most kOpenStep bytes, each beneath the last.
UniqueFd open_directory(int root_fd, const std::string& path, int flags) {
  UniqueFd step;
  int from = root_fd;
  size_t start = 0;
  while (path.size() - start > kOpenStep) {
    const size_t slash = path.rfind('/', start + kOpenStep);
    if (slash == std::string::npos || slash <= start) {
      errno = ENAMETOOLONG;
      return {};
    }
    step = open_beneath(from, path.substr(start, slash - start), O_PATH | O_DIRECTORY);
    if (!step.valid()) return {};
    from = step.get();
    start = slash + 1;
  }
  return open_beneath(from, path.substr(start), flags | O_DIRECTORY);
}

// The names in a directory other than "." and "..", read with getdents64 in batches.
class DirectoryNames {
 public:
  // From the first name, even when the descriptor was read before.
  explicit DirectoryNames(int dir_fd) : fd_(dir_fd), buffer_(kDirectoryBuffer) {
    if (::lseek(dir_fd, 0, SEEK_SET) != 0) error_ = errno;
  }

  // The next name; false at the end or on an error (then error() is its errno).
  bool next(std::string& name) {
    for (;;) {
      if (error_ != 0 || (offset_ == filled_ && !refill())) return false;
      const auto* entry = reinterpret_cast<const struct dirent64*>(buffer_.data() + offset_);
      offset_ += entry->d_reclen;
      const char* raw = entry->d_name;
      if (std::strcmp(raw, ".") == 0 || std::strcmp(raw, "..") == 0) continue;
      name.assign(raw);
      return true;
    }
  }
  int error() const { return error_; }

 private:
  bool refill() {
    const ssize_t got = ::getdents64(fd_, buffer_.data(), buffer_.size());
    if (got < 0) error_ = errno;
    if (got <= 0) return false;
    offset_ = 0;
    filled_ = static_cast<size_t>(got);
    return true;
  }

  int fd_;
  std::vector<char> buffer_;
  size_t offset_ = 0;
  size_t filled_ = 0;
  int error_ = 0;
};

// `count` bytes or up to the end of the file.
ssize_t read_up_to(int fd, char* buffer, size_t count) {
  size_t got = 0;
  while (got < count) {
    const ssize_t n = ::read(fd, buffer + got, count - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(got);
}

class Collector {
 public:
  Collector(int upper_fd, int lower_fd, const CollectLimits& limits)
      : upper_root_(upper_fd), lower_root_(lower_fd), limits_(limits) {}

  ChangeSet run() {
    // The root is never opaque: overlayfs merges the layers' roots whatever their xattrs say.
    pending_.push_back({"", DirView::Merged});
    while (!pending_.empty()) {
      const PendingDir dir = std::move(pending_.back());
      pending_.pop_back();
      visit(dir);
    }
    std::sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) { return a.path < b.path; });
    return std::move(changes_);
  }

 private:
  void visit(const PendingDir& dir) {
    UniqueFd upper_dir, lower_dir;
    if (dir.view != DirView::LowerOnly) upper_dir = open_layer_directory(Layer::Upper, dir.path);
    if (dir.view != DirView::UpperOnly) lower_dir = open_layer_directory(Layer::Lower, dir.path);
    lower_names_.reset();
    lower_lookups_ = 0;
    std::string name;
    if (upper_dir.valid()) {
      DirectoryNames names(upper_dir.get());
      while (names.next(name)) on_upper_name(dir, upper_dir.get(), lower_dir.get(), name);
      if (names.error() != 0) fail_read(Layer::Upper, dir.path, names.error());
    }
    if (dir.view == DirView::Opaque || dir.view == DirView::LowerOnly) {
      DirectoryNames names(lower_dir.get());
      while (names.next(name)) on_hidden_lower_name(dir, upper_dir.get(), lower_dir.get(), name);
      if (names.error() != 0) fail_read(Layer::Lower, dir.path, names.error());
    }
    if (upper_dir.valid()) last_upper_ = {dir.path, std::move(upper_dir)};
    if (lower_dir.valid()) last_lower_ = {dir.path, std::move(lower_dir)};
  }

  // Opened beneath the layer's root, or beneath the directory read last when it is an ancestor
  // (as it is for the first subdirectory of each directory): reopening a path of N levels from
  // the root costs N lookups, which over a deep tree adds up to its depth squared.
  UniqueFd open_layer_directory(Layer layer, const std::string& path) const {
    const OpenDir& last = layer == Layer::Upper ? last_upper_ : last_lower_;
    const bool below_last = !last.path.empty() && path.size() > last.path.size() && path[last.path.size()] == '/' &&
                            path.compare(0, last.path.size(), last.path) == 0;
    UniqueFd fd = below_last ? open_directory(last.fd.get(), path.substr(last.path.size() + 1), O_RDONLY)
                             : open_directory(layer == Layer::Upper ? upper_root_ : lower_root_, path, O_RDONLY);
    if (!fd.valid()) fail_read(layer, path, errno);
    return fd;
  }

  // The lower entry at `name` of the directory being read, if any. After kLookupsBeforeListing
  // names the lower directory's names are read once, and a name it lacks is not asked of the
  // kernel: in a large upper directory most names are new.
  Node lower_node(const PendingDir& dir, int lower_dir, const std::string& name, const std::string& path) {
    if (lower_dir < 0) return {};
    if (!lower_names_ && ++lower_lookups_ > kLookupsBeforeListing) {
      lower_names_.emplace();
      DirectoryNames names(lower_dir);
      for (std::string lower_name; names.next(lower_name);) {
        count_entry();
        lower_names_->insert(lower_name);
      }
      if (names.error() != 0) fail_read(Layer::Lower, dir.path, names.error());
    }
    if (lower_names_ && !lower_names_->contains(name)) return {};
    return stat_node(Layer::Lower, lower_dir, name, path, true);
  }

  // A name in the upper directory, against the same name in the lower one (if it shows).
  void on_upper_name(const PendingDir& dir, int upper_dir, int lower_dir, const std::string& name) {
    count_entry();
    const std::string path = child_path(dir.path, name);
    const Node upper = stat_node(Layer::Upper, upper_dir, name, path, false);
    const Node lower = lower_node(dir, lower_dir, name, path);
    if (is_whiteout(upper)) {
      if (is_directory(lower)) pending_.push_back({path, DirView::LowerOnly});
      else if (lower.exists) record(path, ChangeKind::Deleted, lower, lower_dir, {}, upper_dir, name);
      return;
    }
    const bool opaque = check_upper_xattrs(upper_dir, name, path, upper);
    if (is_directory(upper)) {
      if (is_directory(lower)) {
        const bool hides = opaque || dir.view == DirView::Opaque;  // below an opaque directory nothing merges
        pending_.push_back({path, hides ? DirView::Opaque : DirView::Merged});
        return;
      }
      if (lower.exists) record(path, ChangeKind::Deleted, lower, lower_dir, {}, upper_dir, name);
      pending_.push_back({path, DirView::UpperOnly});
      return;
    }
    if (is_directory(lower)) pending_.push_back({path, DirView::LowerOnly});
    if (!lower.exists || is_directory(lower)) {
      record(path, ChangeKind::Added, {}, lower_dir, upper, upper_dir, name);
      return;
    }
    compare(path, upper_dir, lower_dir, name, upper, lower);
  }

  // A name in a lower directory the upper layer hides: deleted unless the upper one has it.
  void on_hidden_lower_name(const PendingDir& dir, int upper_dir, int lower_dir, const std::string& name) {
    count_entry();
    const std::string path = child_path(dir.path, name);
    if (upper_dir >= 0 && stat_node(Layer::Upper, upper_dir, name, path, true).exists) return;  // seen above
    const Node lower = stat_node(Layer::Lower, lower_dir, name, path, false);
    if (is_directory(lower)) pending_.push_back({path, DirView::LowerOnly});
    else record(path, ChangeKind::Deleted, lower, lower_dir, {}, upper_dir, name);
  }

  // Two non-directories at one path.
  void compare(const std::string& path, int upper_dir, int lower_dir, const std::string& name, const Node& upper,
               const Node& lower) {
    const mode_t type = upper.st.stx_mode & S_IFMT;
    std::optional<ChangeKind> kind;
    if (type != (lower.st.stx_mode & S_IFMT)) {
      kind = ChangeKind::Retyped;
    } else if (type == S_IFREG) {
      if (upper.st.stx_size != lower.st.stx_size || !same_content(upper_dir, lower_dir, name, path, upper, lower)) {
        kind = ChangeKind::Modified;
      } else if ((upper.st.stx_mode & 07777) != (lower.st.stx_mode & 07777)) {
        kind = ChangeKind::ModeOnly;
      }
    } else if (type == S_IFLNK) {
      if (link_target(Layer::Upper, upper_dir, name, path) != link_target(Layer::Lower, lower_dir, name, path)) {
        kind = ChangeKind::Modified;
      }
    } else if (type == S_IFCHR || type == S_IFBLK) {
      if (upper.st.stx_rdev_major != lower.st.stx_rdev_major || upper.st.stx_rdev_minor != lower.st.stx_rdev_minor) {
        kind = ChangeKind::Modified;
      }
    }  // FIFOs and sockets have nothing to compare: their permission bits are not reported either
    if (kind) record(path, *kind, lower, lower_dir, upper, upper_dir, name);
  }

  // Compared in chunks: a file is never held whole.
  bool same_content(int upper_dir, int lower_dir, const std::string& name, const std::string& path, const Node& upper,
                    const Node& lower) {
    const UniqueFd upper_file = open_regular(Layer::Upper, upper_dir, name, path, upper);
    const UniqueFd lower_file = open_regular(Layer::Lower, lower_dir, name, path, lower);
    if (upper_buffer_.empty()) {
      upper_buffer_.resize(kCompareChunk);
      lower_buffer_.resize(kCompareChunk);
    }
    for (;;) {
      const ssize_t upper_got = read_up_to(upper_file.get(), upper_buffer_.data(), kCompareChunk);
      if (upper_got < 0) fail_read(Layer::Upper, path, errno);
      const ssize_t lower_got = read_up_to(lower_file.get(), lower_buffer_.data(), kCompareChunk);
      if (lower_got < 0) fail_read(Layer::Lower, path, errno);
      if (upper_got != lower_got) return false;
      if (std::memcmp(upper_buffer_.data(), lower_buffer_.data(), static_cast<size_t>(upper_got)) != 0) return false;
      if (upper_got == 0) return true;
    }
  }

  // The regular file statx saw, opened for reading: anything else in its place now is a change
  // made while the review read it.
  static UniqueFd open_regular(Layer layer, int dir_fd, const std::string& name, const std::string& path,
                               const Node& seen) {
    UniqueFd fd = open_beneath(dir_fd, name, O_RDONLY | O_NOCTTY | O_NONBLOCK);
    if (!fd.valid()) fail_read(layer, path, errno);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) fail_read(layer, path, errno);
    if (!S_ISREG(st.st_mode) || st.st_ino != seen.st.stx_ino) fail_read(layer, path, ESTALE);
    return fd;
  }

  static Node stat_node(Layer layer, int dir_fd, const std::string& name, const std::string& path, bool may_be_absent) {
    Node node;
    if (::statx(dir_fd, name.c_str(), AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &node.st) != 0) {
      if (errno == ENOENT && may_be_absent) return node;
      fail_read(layer, path, errno);
    }
    // A mount shows its own root here, which overlayfs (which never crosses mounts) does not.
    if (node.st.stx_attributes_mask & node.st.stx_attributes & STATX_ATTR_MOUNT_ROOT) fail_read(layer, path, EXDEV);
    node.exists = true;
    return node;
  }

  // Refuses xattrs cordon's overlay never writes; true for an opaque directory.
  bool check_upper_xattrs(int dir_fd, const std::string& name, const std::string& path, const Node& node) {
    if (!S_ISDIR(node.st.stx_mode) && !S_ISREG(node.st.stx_mode)) return false;
    bool opaque = false;
    for (const std::string& xattr : xattr_names(dir_fd, name, path)) {
      const size_t dot = xattr.find('.');
      if (dot == std::string::npos || !is_overlay_namespace(std::string_view(xattr).substr(0, dot))) continue;
      const std::string_view key = std::string_view(xattr).substr(dot + 1);
      if (key == "overlay.metacopy" || key == "overlay.redirect") refuse_foreign_xattr(path, xattr);
      if (key == "overlay.opaque" && S_ISDIR(node.st.stx_mode))
        opaque = opaque || xattr_is_y(dir_fd, name, xattr, path);
    }
    return opaque;
  }

  bool is_overlay_namespace(std::string_view space) const {
    switch (limits_.overlay_xattrs) {
      case OverlayXattrs::Trusted: return space == "trusted";
      case OverlayXattrs::User: return space == "user";
      case OverlayXattrs::Either: break;
    }
    return space == "trusted" || space == "user";
  }

  std::vector<std::string> xattr_names(int dir_fd, const std::string& name, const std::string& path) {
    ssize_t got;
    while ((got = list_xattrs(dir_fd, name, xattr_list_.data(), xattr_list_.size())) < 0 && errno == ERANGE) {
      const ssize_t needed = list_xattrs(dir_fd, name, nullptr, 0);
      if (needed < 0) fail_read(Layer::Upper, path, errno);
      xattr_list_.resize(static_cast<size_t>(needed) + 1);
    }
    if (got < 0 && (errno == ENOTSUP || errno == EOPNOTSUPP)) return {};
    if (got < 0) fail_read(Layer::Upper, path, errno);
    std::vector<std::string> names;
    for (size_t at = 0; at < static_cast<size_t>(got);) {
      names.emplace_back(xattr_list_.data() + at);
      at += names.back().size() + 1;
    }
    return names;
  }

  // listxattrat(2) (Linux 6.13) on `name` beneath `dir_fd`, not followed; before it, llistxattr
  // of the name beneath the directory's /proc/self/fd link (a longer walk: about a third of
  // the time of a large review).
  ssize_t list_xattrs(int dir_fd, const std::string& name, char* list, size_t size) {
    if (has_xattrat_) {
      const long got = ::syscall(kSysListxattrat, dir_fd, name.c_str(), AT_SYMLINK_NOFOLLOW, list, size);
      if (got >= 0 || !xattrat_missing()) return got;
    }
    return ::llistxattr(proc_path(dir_fd, name).c_str(), list, size);
  }

  // Whether `xattr` on the name is exactly "y", as overlayfs reads it (it reads one byte: a
  // longer value is not opaque). getxattrat(2) where there is one, as above.
  bool xattr_is_y(int dir_fd, const std::string& name, const std::string& xattr, const std::string& path) {
    char value = 0;
    long got = -1;
    if (has_xattrat_) {
      XattrArgs args{reinterpret_cast<uintptr_t>(&value), 1, 0};
      got = ::syscall(kSysGetxattrat, dir_fd, name.c_str(), AT_SYMLINK_NOFOLLOW, xattr.c_str(), &args, sizeof args);
      if (got < 0 && xattrat_missing()) got = -1;
    }
    if (!has_xattrat_) got = ::lgetxattr(proc_path(dir_fd, name).c_str(), xattr.c_str(), &value, 1);
    if (got < 0 && errno != ERANGE) fail_read(Layer::Upper, path, errno);
    return got == 1 && value == 'y';
  }

  // After a failed *xattrat call: true (and no more calls) when the kernel lacks the calls
  // (ENOSYS), or a seccomp filter written before them refuses them (EPERM). The paths used
  // instead need /proc.
  bool xattrat_missing() {
    if (errno != ENOSYS && errno != EPERM) return false;
    has_xattrat_ = false;
    if (::access("/proc/self/fd", X_OK) != 0) {
      throw Error(errno_text("review: reading xattrs on Linux before 6.13 needs /proc/self/fd", errno),
                  "mount /proc and run the review again");
    }
    return true;
  }

  // xattr calls before Linux 6.13 take a path, not a directory and a name: the name beneath
  // the directory's /proc/self/fd link (with the l- calls, so that it is not followed).
  static std::string proc_path(int dir_fd, const std::string& name) {
    return "/proc/self/fd/" + std::to_string(dir_fd) + "/" + name;
  }

  static std::string link_target(Layer layer, int dir_fd, const std::string& name, const std::string& path) {
    std::string target(256, '\0');
    for (;;) {
      const ssize_t got = ::readlinkat(dir_fd, name.c_str(), target.data(), target.size());
      if (got < 0) fail_read(layer, path, errno);
      if (static_cast<size_t>(got) < target.size()) {
        target.resize(static_cast<size_t>(got));
        return target;
      }
      target.resize(target.size() * 2);  // maybe cut short: read again with room to spare
    }
  }

  static EntryState entry_state(Layer layer, const Node& node, int dir_fd, const std::string& name,
                                const std::string& path) {
    EntryState state;
    if (!node.exists) return state;
    state.exists = true;
    state.mode = node.st.stx_mode;
    state.size = node.st.stx_size;
    state.dev = makedev(node.st.stx_dev_major, node.st.stx_dev_minor);
    state.ino = node.st.stx_ino;
    state.nlink = node.st.stx_nlink;
    state.ctime_ns = node.st.stx_ctime.tv_sec * 1'000'000'000LL + node.st.stx_ctime.tv_nsec;
    if (S_ISLNK(node.st.stx_mode)) state.link_target = link_target(layer, dir_fd, name, path);
    return state;
  }

  void record(const std::string& path, ChangeKind kind, const Node& lower, int lower_dir, const Node& upper,
              int upper_dir, const std::string& name) {
    changes_.push_back({path, kind, entry_state(Layer::Lower, lower, lower_dir, name, path),
                        entry_state(Layer::Upper, upper, upper_dir, name, path)});
  }

  void count_entry() {
    if (++entries_ <= limits_.max_entries) return;
    throw Error("review: the session's upper layer and the workspace directories it touches hold more than " +
                    std::to_string(limits_.max_entries) + " entries, more than review mode reads",
                "copy what you need out of the session's upper layer by hand, then `cordon discard` the session");
  }

  int upper_root_;
  int lower_root_;
  CollectLimits limits_;
  size_t entries_ = 0;
  std::vector<PendingDir> pending_;                             // directories still to read: paths, no descriptors
  OpenDir last_upper_, last_lower_;                             // the directories read last: one descriptor per layer
  std::optional<std::unordered_set<std::string>> lower_names_;  // of the directory being read
  size_t lower_lookups_ = 0;
  ChangeSet changes_;
  std::vector<char> upper_buffer_, lower_buffer_;
  std::vector<char> xattr_list_ = std::vector<char>(1024);
  bool has_xattrat_ = true;  // listxattrat and getxattrat, Linux 6.13
};

}  // namespace

ChangeSet collect_changes(int upper_fd, int lower_fd, const CollectLimits& limits) {
  return Collector(upper_fd, lower_fd, limits).run();
}

}  // namespace cordon::review
