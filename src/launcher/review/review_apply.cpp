#include "launcher/review/review_apply.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <random>
#include <set>
#include <vector>

#include "common/error.h"
#include "common/sha256.h"
#include "common/text.h"
#include "launcher/review/beneath.h"
#include "launcher/review/layer_files.h"

namespace cordon::review {
namespace {

constexpr mode_t kPermissionBits = 0777;  // what apply keeps of a mode: never 07000

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

bool same_type(mode_t a, mode_t b) { return (a & S_IFMT) == (b & S_IFMT); }

// One change against the host tree as it is now.
std::optional<Conflict> conflict_of(int workspace_fd, const ReviewBase& base, const Change& change) {
  EntryState host;
  try {
    host = entry_now(workspace_fd, change.path);
  } catch (const Error& e) {
    return Conflict{change.path, e.what()};
  }
  if (change.before.exists) {
    if (!host.exists) return Conflict{change.path, "the host removed it since the diff was read"};
    if (!same_type(host.mode, change.before.mode))
      return Conflict{change.path, "the host replaced it with another kind of entry"};
    if (changed_since(base, host.ctime_ns)) return Conflict{change.path, "the host changed it since the session began"};
    return std::nullopt;
  }
  if (host.exists && !S_ISDIR(host.mode))
    return Conflict{change.path, "the host made an entry there since the session began"};
  return std::nullopt;
}

std::string temp_name() {
  static std::mt19937_64 random{std::random_device{}()};
  static const char* digits = "0123456789abcdef";
  std::string name = ".cordon-apply-";
  for (int i = 0; i < 12; ++i) name += digits[random() & 15];
  return name;
}

// The directories of `relative`'s parent, made where missing (modes from the upper layer,
// without special bits), each reached beneath the workspace; the parent, opened.
UniqueFd make_parents(int workspace_fd, int upper_fd, const std::string& relative) {
  std::string done;
  UniqueFd dir = open_beneath(workspace_fd, "", O_PATH | O_DIRECTORY);
  const std::string parent = parent_of(relative);
  size_t start = 0;
  while (!parent.empty() && start <= parent.size()) {
    const size_t slash = std::min(parent.find('/', start), parent.size());
    const std::string name = parent.substr(start, slash - start);
    done += (done.empty() ? "" : "/") + name;
    UniqueFd next = open_beneath(workspace_fd, done, O_PATH | O_DIRECTORY);
    if (!next.valid() && errno == ENOENT) {
      struct stat st {};
      UniqueFd upper_dir = open_beneath(upper_fd, done, O_PATH | O_DIRECTORY);
      mode_t mode = upper_dir.valid() && ::fstat(upper_dir.get(), &st) == 0 ? st.st_mode & kPermissionBits : 0755;
      if (::mkdirat(dir.get(), name.c_str(), mode | 0700) != 0 && errno != EEXIST)
        throw Error(errno_text("making the directory " + terminal_safe(done), errno), "");
      ::fchmodat(dir.get(), name.c_str(), mode, AT_SYMLINK_NOFOLLOW);
      next = open_beneath(workspace_fd, done, O_PATH | O_DIRECTORY);
    }
    if (!next.valid()) throw Error(errno_text("opening the directory " + terminal_safe(done), errno), "");
    dir = std::move(next);
    start = slash + 1;
  }
  return dir;
}

// Writes the upper layer's entry at `change.path` under a temporary name beside its host
// path and renames it over the host's: the host path holds the old entry or the new one,
// never a mix.
void place_entry(int workspace_fd, int upper_fd, const Change& change, AppliedEntry& out) {
  UniqueFd parent = make_parents(workspace_fd, upper_fd, change.path);
  const std::string name = change.path.substr(change.path.rfind('/') == std::string::npos ? 0
                                                                                          : change.path.rfind('/') + 1);
  const std::string temp = temp_name();
  const mode_t mode = change.after.mode;
  if (S_ISREG(mode)) {
    const std::string bytes = read_layer_file(upper_fd, change.path, change.after);
    out.sha256_after = sha256_hex(bytes);
    UniqueFd file(::openat(parent.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!file.valid()) throw Error(errno_text("creating a file beside " + terminal_safe(change.path), errno), "");
    const std::string failed = write_all(file.get(), bytes, terminal_safe(change.path));
    if (!failed.empty() || ::fchmod(file.get(), mode & kPermissionBits) != 0) {
      const int err = errno;
      ::unlinkat(parent.get(), temp.c_str(), 0);
      throw Error(failed.empty() ? errno_text("writing " + terminal_safe(change.path), err) : failed, "");
    }
    // The upper file must be what was read: a change to it during the copy is not applied.
    struct stat now {};
    UniqueFd again = open_beneath(upper_fd, change.path, O_PATH | O_NOFOLLOW);
    if (!again.valid() || ::fstat(again.get(), &now) != 0 || now.st_ino != change.after.ino ||
        static_cast<uint64_t>(now.st_size) != change.after.size ||
        static_cast<int64_t>(now.st_ctim.tv_sec) * 1000000000 + now.st_ctim.tv_nsec != change.after.ctime_ns) {
      ::unlinkat(parent.get(), temp.c_str(), 0);
      throw Error("the upper layer's " + terminal_safe(change.path) + " changed while apply ran", "");
    }
  } else if (S_ISLNK(mode)) {
    if (::symlinkat(change.after.link_target.c_str(), parent.get(), temp.c_str()) != 0)
      throw Error(errno_text("making the symlink " + terminal_safe(change.path), errno), "");
  } else if (S_ISFIFO(mode)) {
    if (::mkfifoat(parent.get(), temp.c_str(), mode & kPermissionBits) != 0)
      throw Error(errno_text("making the fifo " + terminal_safe(change.path), errno), "");
  } else {
    throw Error("a socket or device node is never applied", "make it yourself if you meant it");
  }
  if (mode & 07000) out.note = "set-user-ID, set-group-ID and sticky bits dropped";
  if (::renameat(parent.get(), temp.c_str(), parent.get(), name.c_str()) != 0) {
    const int err = errno;
    ::unlinkat(parent.get(), temp.c_str(), 0);
    throw Error(errno_text("renaming into place " + terminal_safe(change.path), err), "");
  }
}

void change_mode(int workspace_fd, const Change& change) {
  UniqueFd file = open_beneath(workspace_fd, change.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  struct stat st {};
  if (!file.valid() || ::fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      ::fchmod(file.get(), change.after.mode & kPermissionBits) != 0)
    throw Error(errno_text("changing the mode of " + terminal_safe(change.path), errno), "");
}

void remove_entry(int workspace_fd, const Change& change) {
  ParentAndName at = open_parent_beneath(workspace_fd, change.path);
  if (!at.parent.valid() || ::unlinkat(at.parent.get(), at.name.c_str(), 0) != 0)
    if (errno != ENOENT) throw Error(errno_text("removing " + terminal_safe(change.path), errno), "");
}

std::string host_digest(int workspace_fd, const Change& change) {
  if (!change.before.exists || !S_ISREG(change.before.mode)) return {};
  return sha256_hex(read_layer_file(workspace_fd, change.path, change.before));
}

// overlayfs's view of `relative` as a directory: what the session saw there. The upper
// layer decides (a whiteout or a non-directory hides it, an opaque directory hides the
// host's below it); else the host's own directory shows through.
bool session_has_directory(int workspace_fd, int upper_fd, const std::string& relative, const ReviewBase& base) {
  // Only the namespace the overlay used: a session can set user.overlay.* on a trusted.* overlay.
  std::vector<const char*> keys;
  if (base.overlay_xattrs != "user") keys.push_back("trusted.overlay.opaque");
  if (base.overlay_xattrs != "trusted") keys.push_back("user.overlay.opaque");
  bool opaque = false;
  size_t start = 0;
  while (start <= relative.size()) {
    const size_t slash = std::min(relative.find('/', start), relative.size());
    const std::string prefix = relative.substr(0, slash);
    ParentAndName at = open_parent_beneath(upper_fd, prefix);
    struct stat st {};
    const bool in_upper = at.parent.valid() &&
                          ::fstatat(at.parent.get(), at.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (in_upper) {
      if (!S_ISDIR(st.st_mode)) return false;  // a whiteout or another entry
      UniqueFd dir = open_beneath(upper_fd, prefix, O_PATH | O_DIRECTORY);
      char value[4] = {};
      const std::string proc = "/proc/self/fd/" + std::to_string(dir.get());
      for (const char* key : keys)
        if (dir.valid() && ::getxattr(proc.c_str(), key, value, sizeof value) == 1 && value[0] == 'y') opaque = true;
    } else {
      if (opaque) return false;
      EntryState host = entry_now(workspace_fd, prefix);
      if (!host.exists || !S_ISDIR(host.mode)) return false;
    }
    start = slash + 1;
  }
  return true;
}

}  // namespace

std::vector<Conflict> find_conflicts(int workspace_fd, const ReviewBase& base, const ChangeSet& changes) {
  std::vector<Conflict> conflicts;
  for (const Change& change : changes)
    if (auto conflict = conflict_of(workspace_fd, base, change)) conflicts.push_back(*conflict);
  return conflicts;
}

ApplyOutcome apply_changes(int workspace_fd, int upper_fd, const ReviewBase& base, const ChangeSet& changes) {
  ApplyOutcome outcome;
  auto attempt = [&](const Change& change, auto&& write) {
    AppliedEntry entry{change.path, change.kind, {}, {}, {}};
    try {
      // Checked again just before each write: the host may have moved on since the check.
      if (auto conflict = conflict_of(workspace_fd, base, change)) {
        outcome.not_applied.push_back(*conflict);
        return;
      }
      entry.sha256_before = host_digest(workspace_fd, change);
      write(entry);
      outcome.applied.push_back(entry);
    } catch (const Error& e) {
      outcome.not_applied.push_back({change.path, e.what()});
    }
  };
  // Deletions first, deepest first, so a directory the session replaced is empty in time.
  std::vector<const Change*> removals, placements;
  for (const Change& change : changes) {
    if (change.kind == ChangeKind::Deleted || change.kind == ChangeKind::Retyped) removals.push_back(&change);
    if (change.kind != ChangeKind::Deleted) placements.push_back(&change);
  }
  std::sort(removals.begin(), removals.end(), [](auto* a, auto* b) { return a->path > b->path; });
  std::set<std::string, std::greater<>> emptied;
  for (const Change* change : removals) {
    if (change->kind == ChangeKind::Retyped) continue;  // renamed over below
    attempt(*change, [&](AppliedEntry&) { remove_entry(workspace_fd, *change); });
    for (std::string dir = parent_of(change->path); !dir.empty(); dir = parent_of(dir)) emptied.insert(dir);
  }
  for (const std::string& dir : emptied)
    if (!session_has_directory(workspace_fd, upper_fd, dir, base)) {
      ParentAndName at = open_parent_beneath(workspace_fd, dir);
      if (at.parent.valid()) ::unlinkat(at.parent.get(), at.name.c_str(), AT_REMOVEDIR);  // ENOTEMPTY: kept
    }
  for (const Change* change : placements)
    attempt(*change, [&](AppliedEntry& entry) {
      if (change->kind == ChangeKind::ModeOnly) {
        change_mode(workspace_fd, *change);
        entry.sha256_after = entry.sha256_before;
      } else {
        EntryState host = entry_now(workspace_fd, change->path);
        if (host.exists && S_ISDIR(host.mode))
          throw Error("the host still has a directory at " + terminal_safe(change->path), "");
        place_entry(workspace_fd, upper_fd, *change, entry);
      }
    });
  return outcome;
}

}  // namespace cordon::review
