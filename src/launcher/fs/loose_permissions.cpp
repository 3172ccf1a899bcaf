#include "launcher/fs/loose_permissions.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "common/error.h"
#include "common/unique_fd.h"

namespace cordon {
namespace {

// linux/posix_acl_xattr.h: a version word, then {tag, perm, id} entries.
constexpr uint32_t kAclVersion = 2;
constexpr uint16_t kAclUserObj = 0x01, kAclUser = 0x02, kAclGroupObj = 0x04, kAclGroup = 0x08, kAclMask = 0x10,
                   kAclOther = 0x20;
constexpr uint16_t kAclWrite = 2;
constexpr int kMaxDepth = 128;
const char* const kAclNames[] = {"system.posix_acl_access", "system.posix_acl_default"};

long long ns_of(const timespec& t) { return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec; }

std::string octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// The descriptor's inode through its /proc/self/fd link: chmod and the xattr calls reach the
// inode an O_PATH|O_NOFOLLOW open pinned, never what a name points to by then.
std::string fd_path(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

class Walker {
 public:
  explicit Walker(const PermissionBaseline& baseline) : baseline_(baseline) {}

  void root(const PermissionRoot& root) {
    UniqueFd fd(::open(root.path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0) return;  // gone: nothing of it is left to reach
    if (S_ISLNK(st.st_mode)) return;
    entry(fd.get(), st, root.path);
    if (root.recursive && S_ISDIR(st.st_mode)) descend(fd.get(), st.st_dev, root.path, 0);
  }

  FootholdAudit report;

 private:
  void descend(int path_fd, dev_t dev, const std::string& path, int depth) {
    if (depth >= kMaxDepth) {
      report.problems.push_back("permissions below " + path + " were not checked: deeper than " +
                                std::to_string(kMaxDepth) + " levels");
      return;
    }
    UniqueFd dir(::openat(path_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    DIR* stream = dir.valid() ? ::fdopendir(dir.get()) : nullptr;
    if (!stream) {
      report.problems.push_back(errno_text("permissions below " + path + " were not checked", errno));
      return;
    }
    const int dir_fd = dir.release();  // closedir closes it
    while (const dirent* d = ::readdir(stream)) {
      if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
      if (++seen_ > kMaxPermissionEntries) {
        if (!bounded_)
          report.problems.push_back("permissions were checked for the first " + std::to_string(kMaxPermissionEntries) +
                                    " entries only");
        bounded_ = true;
        break;
      }
      UniqueFd fd(::openat(dir_fd, d->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC));
      struct stat st {};
      if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
      const std::string child = path + "/" + d->d_name;
      entry(fd.get(), st, child);
      // Another file system mounted below (not the session's to change) is not entered.
      if (S_ISDIR(st.st_mode) && st.st_dev == dev) descend(fd.get(), dev, child, depth + 1);
    }
    ::closedir(stream);
  }

  void entry(int fd, const struct stat& st, const std::string& path) {
    if (ns_of(st.st_ctim) < baseline_.since_ns) return;  // unchanged since before the launch
    const std::string proc = fd_path(fd);
    std::string detail;
    for (const char* name : kAclNames) {
      if (name == kAclNames[1] && !S_ISDIR(st.st_mode)) break;
      std::string value(1024, '\0');
      ssize_t n = ::getxattr(proc.c_str(), name, value.data(), value.size());
      if (n < 0 && errno == ERANGE) {
        value.assign(65536, '\0');
        n = ::getxattr(proc.c_str(), name, value.data(), value.size());
      }
      if (n < 0) continue;  // none (ENODATA), or no ACLs on this file system
      value.resize(static_cast<size_t>(n));
      if (!acl_grants_write(value, st.st_gid, baseline_.private_group)) continue;
      if (::removexattr(proc.c_str(), name) != 0) {
        report.problems.push_back(errno_text("removing the ACL of " + path, errno));
        continue;
      }
      detail += std::string(detail.empty() ? "" : ", ") + (name == kAclNames[0] ? "ACL" : "default ACL");
    }
    struct stat now {};
    if (::fstat(fd, &now) != 0) now = st;
    if (const mode_t loose = loose_mode_bits(now.st_mode, now.st_gid, baseline_.private_group); loose != 0) {
      const mode_t tight = now.st_mode & 07777 & ~loose;
      if (::chmod(proc.c_str(), tight) != 0) {
        report.problems.push_back(errno_text("tightening the mode of " + path, errno));
      } else {
        detail = "mode " + octal(now.st_mode) + " -> " + octal(tight) + (detail.empty() ? "" : ", " + detail);
      }
    }
    if (!detail.empty()) report.items.push_back({"permissions", path, "", detail});
  }

  const PermissionBaseline& baseline_;
  size_t seen_ = 0;
  bool bounded_ = false;
};

uint16_t le16(const std::string& v, size_t at) {
  return static_cast<uint16_t>(static_cast<unsigned char>(v[at]) | static_cast<unsigned char>(v[at + 1]) << 8);
}

uint32_t le32(const std::string& v, size_t at) {
  return static_cast<uint32_t>(le16(v, at)) | static_cast<uint32_t>(le16(v, at + 2)) << 16;
}

}  // namespace

mode_t loose_mode_bits(mode_t mode, gid_t gid, const std::optional<gid_t>& private_group) {
  mode_t loose = mode & (S_IWOTH | S_ISUID);
  if ((mode & S_IWGRP) && !(private_group && *private_group == gid)) loose |= S_IWGRP;
  if ((mode & S_ISGID) && !S_ISDIR(mode)) loose |= S_ISGID;
  return loose;
}

bool acl_grants_write(const std::string& v, gid_t owning_group, const std::optional<gid_t>& private_group) {
  constexpr size_t kEntry = 8;
  if (v.size() < 4 || (v.size() - 4) % kEntry != 0 || le32(v, 0) != kAclVersion) return true;
  bool mask_writes = true;  // no mask: the named entries are effective as written
  for (size_t at = 4; at < v.size(); at += kEntry)
    if (le16(v, at) == kAclMask) mask_writes = (le16(v, at + 2) & kAclWrite) != 0;
  for (size_t at = 4; at < v.size(); at += kEntry) {
    const uint16_t tag = le16(v, at);
    const bool writes = (le16(v, at + 2) & kAclWrite) != 0;
    const uint32_t id = le32(v, at + 4);
    if (!writes) continue;
    if (tag == kAclOther) return true;
    if (tag == kAclUser && mask_writes) return true;
    const bool private_one = private_group && ((tag == kAclGroupObj && *private_group == owning_group) ||
                                               (tag == kAclGroup && *private_group == id));
    if ((tag == kAclGroup || tag == kAclGroupObj) && mask_writes && !private_one) return true;
    if (tag != kAclUserObj && tag != kAclUser && tag != kAclGroupObj && tag != kAclGroup && tag != kAclMask)
      return true;  // an unknown tag: not ours to trust
  }
  return false;
}

PermissionBaseline permission_baseline(std::vector<PermissionRoot> roots, std::optional<gid_t> private_group) {
  PermissionBaseline b;
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  // A second early: file systems stamp inode changes from a coarse clock that lags this one.
  b.since_ns = ns_of(now) - 1000000000LL;
  b.private_group = private_group;
  b.roots = std::move(roots);
  return b;
}

FootholdAudit reset_loose_permissions(const PermissionBaseline& baseline) {
  Walker walker(baseline);
  for (const auto& root : baseline.roots) walker.root(root);
  return std::move(walker.report);
}

std::string permission_line(const AuditItem& item) {
  return "tightened " + item.path + " (" + item.detail + "): the session left it writable or set-id for other users";
}

}  // namespace cordon
