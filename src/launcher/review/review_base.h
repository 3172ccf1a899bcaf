// What a review-mode session started from, recorded before its overlay is mounted, so that
// `cordon apply` can tell a host change since then from the session's own.
//
// The snapshot costs nothing per file: it is a watermark on the kernel's change time. Every
// change to a file's content, mode, owner or links (a write, a rename onto it, a new file in
// its place) sets its ctime to the current time, which no system call lets a process choose.
// A host entry whose ctime is at or after the watermark changed after the session began (or
// within the same clock tick before it: a false conflict, which is acceptable); one before it
// is as it was at launch. The watermark is CLOCK_REALTIME_COARSE, the clock the kernel stamps
// ctime from (fine-grained stamps are never earlier than it). Limits (docs/review.md): a
// system clock set backwards during a session, and filesystems that do not keep ctime
// (some FUSE and network filesystems), can hide a host change.
//
// A git workspace also records its HEAD (the commit, and the branch it names) and git's own
// checksum of its index (the index file's trailing SHA-1): apply reports a repository that
// moved, and checks each file it writes by the watermark.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace cordon::review {

struct ReviewBase {
  std::string session;
  std::string workspace;  // the host workspace's path at launch
  dev_t workspace_dev = 0;
  ino_t workspace_ino = 0;
  int64_t watermark_ns = 0;  // CLOCK_REALTIME_COARSE at launch, ns since the epoch
  std::string git_head;      // the commit HEAD named at launch ("" = not a git workspace, or unborn)
  std::string git_branch;    // "refs/heads/main"; "" for a detached HEAD
  std::string git_index;     // hex of the index's trailing checksum ("" = no index)
  // Digests of the host's credential variables that were kept out of the sandbox, for the
  // scanner (review_scan.h): length, keyed rolling hash and SHA-256 each, never a value.
  std::string masked_json = "[]";
  uint64_t masked_key = 0;
  // Where overlayfs kept its marks: "user" or "trusted" (review_overlay.h's overlay-xattrs,
  // written once the overlay was mounted); "" when it never was.
  std::string overlay_xattrs;
};

// The base of a session over `workspace_fd` (an O_PATH directory at `workspace`), taken now.
ReviewBase take_review_base(const std::string& session, const std::string& workspace, int workspace_fd);

// The "cordon-review-base" document (version kReviewBaseVersion), one line.
std::string review_base_text(const ReviewBase& base);
// Parses it back; throws cordon::Error naming `path` for anything else.
ReviewBase parse_review_base(const std::string& text, const std::string& path);

// The host's ctime of an entry is after the base's watermark: it changed since launch.
bool changed_since(const ReviewBase& base, int64_t ctime_ns);

}  // namespace cordon::review
