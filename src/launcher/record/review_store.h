// Where a review lives and how the commands find it: STATE/reviews/ID holds the session's
// upper layer (upper/), overlayfs's work directory (work/) and its base (base.json). A review
// is pending while that directory exists; `cordon apply` of everything, or `cordon discard`,
// removes it. Retention never prunes a session with a pending review (record/sweep.h).
#pragma once

#include <string>
#include <vector>

#include "common/unique_fd.h"
#include "launcher/review/review_base.h"
#include "launcher/review/review_changes.h"

namespace cordon::review {

struct StoredReview {
  std::string id;
  std::string dir;  // STATE/reviews/ID
  ReviewBase base;
};

// The ids of the reviews in the state directory of `sessions_dir`, oldest first.
std::vector<std::string> review_ids(const std::string& sessions_dir);

// The review `id`, or (id "") the newest one whose workspace is `cwd` or a directory above it.
// Throws cordon::Error with kExitConfigError naming the reviews it could mean when there is none.
StoredReview find_review(const std::string& sessions_dir, const std::string& id, const std::string& cwd);

// The review's base, read from its directory (with the overlay's xattr namespace); throws
// cordon::Error when unreadable.
ReviewBase read_review_base(const std::string& dir);

// How the review's upper layer is read: only the xattr namespace its overlay used.
CollectLimits collect_limits(const ReviewBase& base);

// The host workspace the review was taken over, opened by its path without following any
// symlink on it, and required to be the same directory (device and inode) as at launch.
// Throws cordon::Error (moved, replaced by a symlink or another directory) otherwise.
UniqueFd open_reviewed_workspace(const ReviewBase& base);

// The review's upper layer, O_PATH, never through a link.
UniqueFd open_upper_layer(const std::string& dir);

// The review's changes now: its workspace (checked as open_reviewed_workspace checks it) and
// upper layer opened, read by collect_changes. Throws cordon::Error.
ChangeSet pending_changes(const std::string& dir, const ReviewBase& base);

// "3 pending" for `cordon sessions list`: the review's change count now; "" when session `id`
// has no review, "unreadable" when it cannot be read.
std::string pending_summary(const std::string& sessions_dir, const std::string& id);

// Removes the review directory and everything in it, whatever the upper layer holds (links
// are removed, never followed; overlayfs's mode-0 work directory is opened up first; depth
// does not exhaust descriptors). Throws cordon::Error naming what could not be removed.
void remove_review(const std::string& dir);

}  // namespace cordon::review
