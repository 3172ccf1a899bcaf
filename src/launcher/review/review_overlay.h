// Review mode's workspace: an overlay whose lower layer is the host workspace (never written)
// and whose upper layer is cordon's own, per session, in its state directory. Mounted in the
// session's mount namespace (process/session_init.h) just before bwrap, attached onto the
// pinned workspace directory, so bwrap's --bind-fd of the workspace binds the overlay.
//
// Why this shape (measured on kernel 6.18 with bwrap 0.8):
// - bwrap's --bind-fd resolves the descriptor to a path in its own mount namespace and checks
//   the result's device and inode: an overlay mounted in another namespace cannot be handed
//   over; it has to be on the workspace path in the namespace bwrap runs in.
// - overlayfs takes private clones of its layers and refuses mounts of another mount
//   namespace, so each pinned directory is reached again in this one and checked to be the
//   same directory (device and inode) before it is used.
// - The new mount API (fsopen, fsconfig, fsmount, move_mount) attaches the overlay onto the
//   pinned directory itself: no path is looked up between the check and the mount.
// - An unprivileged user's overlay uses user.* xattrs (userxattr), which forbids following
//   redirects: redirect_dir=nofollow for everyone, so a renamed directory is copied up whole
//   and the upper layer reads without redirects.
#pragma once

#include <string>

#include "common/unique_fd.h"

namespace cordon::review {

struct OverlayLayers {
  int workspace_fd = -1;   // the host workspace, O_PATH, opened before the fork
  int upper_fd = -1;       // the session's upper layer, O_PATH
  int work_fd = -1;        // overlayfs's work directory (same filesystem as upper), O_PATH
  bool user_xattr = true;  // false for root in the initial user namespace (trusted.* xattrs)
};

// In the session's mount namespace (after unshare and MS_PRIVATE): mounts the overlay onto the
// workspace directory and returns the overlay's root, for bwrap's --bind-fd. Throws
// cordon::Error (what + fix) when a layer changed since it was opened or the kernel refuses.
UniqueFd mount_review_overlay(const OverlayLayers& layers);

// Whether this user can have a review overlay here (cordon doctor): in a forked child with a
// user and mount namespace of its own, an overlay is mounted (userxattr) whose three layers
// are made in a fresh directory under `dir`, so the upper layer is on the filesystem reviews
// use. "" when it mounts; else what failed, as the launch would report it. The caller removes
// `*made` (the fresh directory), whatever the outcome.
std::string overlay_problem(const std::string& dir, std::string* made);

// Writes "user" or "trusted" to the review directory's `overlay-xattrs` (kOverlayXattrsFile),
// made new: what review_base.h's reader gives diff and apply. Throws cordon::Error.
inline constexpr const char* kOverlayXattrsFile = "overlay-xattrs";
void record_overlay_xattrs(int review_dir_fd, bool user_xattr);

}  // namespace cordon::review
