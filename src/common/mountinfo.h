// /proc/self/mountinfo parsed, and which mount a path actually resolves to.
// A mount listed in mountinfo is not necessarily reachable: bwrap stacks mounts (a fresh /dev
// over the host's, /run over the host's /run/netns), so the battery only judges mounts that
// path resolution can reach.
#pragma once

#include <string>
#include <vector>

namespace cordon {

struct Mount {
  int id = 0;
  int parent = 0;
  std::string device;       // the filesystem's "major:minor": one for all of its mounts
  std::string root;         // the mounted subtree of its filesystem ("/" = a whole filesystem)
  std::string mount_point;  // absolute, in this process's root
  std::string mount_opts;   // per-mount options ("ro,nosuid,...")
  std::string fstype;
  std::string source;
  std::string super_opts;  // superblock options

  bool read_only() const;  // the mount or its superblock is read-only
};

class MountTable {
 public:
  MountTable() = default;
  explicit MountTable(std::vector<Mount> mounts);

  const std::vector<Mount>& all() const { return mounts_; }
  // The mount a path (absolute, no symlinks) resides on; nullptr when the table is empty.
  const Mount* containing(const std::string& path) const;
  // Mounts that path resolution reaches (not covered by a later mount); found once, when the
  // table is made (a host with thousands of mounts pays for it once per launch, not per query).
  std::vector<const Mount*> visible() const;
  // True when a visible mount's mount point is `path` or lies below it.
  bool has_mount_at_or_below(const std::string& path) const;
  // Every name the visible mounts give the directory at `path` (absolute, no symlinks): its own,
  // and each other mount of the same filesystem whose subtree holds it (a bind mount of the
  // home elsewhere is the home under another name).
  std::vector<std::string> names_of(const std::string& path) const;
  // The visible mounts strictly below `path`: a recursive bind of `path` carries them along.
  std::vector<const Mount*> mounts_below(const std::string& path) const;

 private:
  const Mount* top_of(const Mount* m) const;  // follow mounts stacked on the same point
  std::vector<Mount> mounts_;
  std::vector<size_t> visible_;  // indices into mounts_ (stable when the table is copied)
};

// Parses mountinfo text (octal escapes such as \040 are decoded). Malformed lines are skipped.
std::vector<Mount> parse_mountinfo(const std::string& text);

}  // namespace cordon
