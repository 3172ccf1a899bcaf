// Reading the files a review compares: regular files beneath a layer's root, opened without
// following a link or crossing a mount (beneath.h), never blocking on a fifo, and required to
// be the entry the change set saw (device, inode, size): a file swapped or grown since then is
// an error, not silently other bytes.
#pragma once

#include <string>

#include "launcher/review/review_change.h"

namespace cordon::review {

// Files larger than this are not read whole into memory by diff, scan or apply.
inline constexpr uint64_t kMaxReviewedFileBytes = 1ULL << 30;  // 1 GiB

// The bytes of the regular file `relative` beneath `root_fd`, which must still be `expected`.
// Throws cordon::Error naming the path otherwise.
std::string read_layer_file(int root_fd, const std::string& relative, const EntryState& expected);

// The entry `relative` beneath `root_fd` as lstat sees it now (exists == false when absent).
// Throws cordon::Error when a directory on its path is a symlink or a mount, or unreadable.
EntryState entry_now(int root_fd, const std::string& relative);

}  // namespace cordon::review
