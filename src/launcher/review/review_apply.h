// `cordon apply`'s writing half: the accepted changes of a review into the host workspace.
//
// What it guarantees (docs/review.md):
// - Nothing is written while any change conflicts: a host entry the diff touches that changed
//   since the session began (review_base.h), appeared where the session added one, or sits
//   under a directory that is now a symlink. Conflicts are named, with what to do.
// - No link in the host tree is followed, no mount crossed: every lookup is beneath the
//   workspace descriptor (beneath.h), which was checked to be the directory the session had.
// - Each file lands whole: written to a temporary name in its own directory, then renamed over
//   the old one. Set-user-ID, set-group-ID and sticky bits are dropped; devices and sockets are
//   never made. A file of the upper layer that changed since the diff was read is left out and
//   reported, not half-copied.
// - Deletions are applied, and directories the session removed are removed once empty.
// The apply as a whole is not one transaction: a failure part-way (a full disk) leaves the
// files already renamed in place, lists them, and a second apply continues with the rest.
#pragma once

#include <string>
#include <vector>

#include "launcher/review/review_base.h"
#include "launcher/review/review_change.h"

namespace cordon::review {

struct Conflict {
  std::string path;
  std::string why;  // "the host changed it since the session began", ...
};

struct AppliedEntry {
  std::string path;
  ChangeKind kind = ChangeKind::Added;
  std::string sha256_before;  // "" when there was no regular file before
  std::string sha256_after;   // "" when there is no regular file after (deleted, symlink, fifo)
  std::string note;           // "setuid bit dropped", ...
};

struct ApplyOutcome {
  std::vector<AppliedEntry> applied;
  std::vector<Conflict> not_applied;  // left out while writing: why each
};

// The conflicts `changes` would meet in the host tree under `workspace_fd` now.
std::vector<Conflict> find_conflicts(int workspace_fd, const ReviewBase& base, const ChangeSet& changes);

// Writes `changes` (already conflict-free and accepted) from `upper_fd` into `workspace_fd`.
// Throws cordon::Error only before the first write; later failures are in not_applied.
ApplyOutcome apply_changes(int workspace_fd, int upper_fd, const ReviewBase& base, const ChangeSet& changes);

}  // namespace cordon::review
