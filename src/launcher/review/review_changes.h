// Reading a review-mode session's upper layer against the host workspace (its lower layer) into
// the list of changes the session made, by overlayfs's on-disk rules
// (Documentation/filesystems/overlayfs.rst): a character device 0:0 is a whiteout, a directory
// whose overlay.opaque xattr is "y" hides the lower directory, any other upper directory merges
// with the lower one, an upper non-directory replaces the lower entry.
//
// The upper layer is the agent's work and is read as hostile: no symbolic link is followed in
// either layer, no mount is crossed, descriptors stay few at any depth (the walk keeps a stack
// of paths, and opens each directory again beneath its layer's root or the directory read just
// before it), and metacopy or redirect xattrs, which cordon's mount options (metacopy=off,
// redirect_dir=nofollow) never produce, refuse the layer instead of being guessed at.
#pragma once

#include <cstddef>

#include "launcher/review/review_change.h"

namespace cordon::review {

// The xattr namespace the overlay keeps its own xattrs (opaque, metacopy, redirect) in:
// trusted.overlay.* when real root mounted it, user.overlay.* with userxattr (review_overlay.h,
// OverlayLayers::user_xattr). Under a trusted.* mount a session can set user.overlay.* xattrs
// through the overlay like any user xattr: the kernel ignores them, and so does the review when
// told the namespace; with Either it honours both, and such an xattr shows as deletions (an
// opaque directory) or refuses the review (metacopy, redirect).
enum class OverlayXattrs { Either, Trusted, User };

struct CollectLimits {
  // Directory entries read in the upper and lower layers together; more refuse the review.
  size_t max_entries = 1'000'000;
  OverlayXattrs overlay_xattrs = OverlayXattrs::Either;
};

// The changes from `lower_fd`'s tree to the overlay `upper_fd` puts on it, sorted by path.
// Both are directories (O_PATH | O_DIRECTORY is enough); neither is written. Only the lower
// directories the upper layer merges with or hides are read. Throws cordon::Error (what + fix)
// when a layer cannot be read, the workspace holds a mount where the upper layer changed
// something, the upper layer carries metacopy or redirect xattrs, or the limit is exceeded.
//
// Regular files compare by size, then bytes (in chunks), then permission bits; symbolic links
// by target; devices by number; FIFOs and sockets of one type have nothing to compare. Overlay
// xattrs count in the namespace `limits` names (the layer itself does not say which mount
// wrote it).
ChangeSet collect_changes(int upper_fd, int lower_fd, const CollectLimits& limits = {});

}  // namespace cordon::review
