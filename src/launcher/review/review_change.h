// What a review-mode session changed: one entry per path of the workspace whose upper-layer
// version differs from the host's. The shared vocabulary of the review commands: the upper
// layer is read into Changes (review_changes.h), rendered as a patch (git_patch.h), scanned
// (review_scan.h) and applied (review_apply.h).
//
// Directories are not changes of their own: git does not track them, and apply makes the
// parents a file needs and removes the directories a deletion empties. A directory that
// replaced a file (or the reverse) shows as the deletion of one and the addition of the other.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cordon::review {

// A path as lstat saw it, in one layer.
struct EntryState {
  bool exists = false;
  mode_t mode = 0;  // st_mode: file type and permission bits
  uint64_t size = 0;
  dev_t dev = 0;
  ino_t ino = 0;
  nlink_t nlink = 0;
  int64_t ctime_ns = 0;     // the kernel's change time: the base check compares it (review_base.h)
  std::string link_target;  // symlinks only: the target as stored, raw bytes
};

enum class ChangeKind {
  Added,     // absent from the host tree (or the host has a directory there)
  Deleted,   // a whiteout, an opaque directory or a directory that replaced it hides the host's entry
  Modified,  // the same type on both sides; content (or link target) differs, mode may too
  ModeOnly,  // a regular file with the same content and different permission bits
  Retyped,   // a non-directory of another type replaced it (file -> symlink, symlink -> fifo, ...)
};

struct Change {
  std::string path;  // relative to the workspace root, '/'-separated; raw bytes (anything but '/' and NUL)
  ChangeKind kind = ChangeKind::Added;
  EntryState before;  // in the host tree now; exists == false for Added
  EntryState after;   // in the upper layer; exists == false for Deleted
};

// Sorted by path (byte order), one entry per path.
using ChangeSet = std::vector<Change>;

const char* kind_name(ChangeKind kind);  // "added", "deleted", "modified", "mode", "retyped"

}  // namespace cordon::review
