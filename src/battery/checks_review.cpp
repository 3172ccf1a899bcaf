// Check 34: review mode's overlay. The session file says whether the workspace was promised as
// the host's own tree (direct) or as an overlay whose writes land in cordon's upper layer
// (review, docs/review.md). In review mode the workspace must be that overlay, seen from
// inside: its filesystem is overlayfs and it has an upper layer (a read-only overlay, or the
// host tree bound in its place, would not hold the session's writes apart).

#include <sys/vfs.h>

#include <cerrno>
#include <cstring>

#include "battery/check.h"

namespace cordon::battery {
namespace {

constexpr long kOverlayfsMagic = 0x794c7630;  // OVERLAYFS_SUPER_MAGIC (linux/magic.h)

bool has_option(const std::string& options, const std::string& key) {
  return options.rfind(key + "=", 0) == 0 || options.find("," + key + "=") != std::string::npos;
}

}  // namespace

Outcome check_review_overlay(const Context& c) {
  if (!c.session) return pass(std::string(kNoSession) + ": no workspace mode promised");
  const std::string& w = c.session->workspace;
  if (c.session->workspace_mode != "review")
    return pass("direct mode: the workspace " + w + " is the host's tree, bound read-write (writes are live)",
                "[workspace] mode = \"direct\"");
  struct statfs fs {};
  if (::statfs(w.c_str(), &fs) != 0) return fail("statfs " + w + ": " + std::strerror(errno));
  const Mount* mount = c.mounts.containing(w);
  if (static_cast<long>(fs.f_type) != kOverlayfsMagic || !mount || mount->fstype != "overlay" ||
      mount->mount_point != w)
    return fail("review mode, but the workspace " + w + " is " + (mount ? mount->fstype : "unmounted") + " at " +
                (mount ? mount->mount_point : "?") +
                ", not the session's overlay: the session's writes reach the host tree");
  if (!has_option(mount->super_opts, "upperdir") || !has_option(mount->super_opts, "lowerdir"))
    return fail("the overlay at " + w + " has no upper layer (" + mount->super_opts + ")");
  if (mount->mount_opts.rfind("ro", 0) == 0 && (mount->mount_opts.size() == 2 || mount->mount_opts[2] == ','))
    return fail("the overlay at " + w + " is mounted read-only: the session cannot work in it");
  return pass("review mode: the workspace " + w +
              " is an overlay; the host tree is its lower layer, and every write lands in the session's upper "
              "layer until `cordon apply`");
}

}  // namespace cordon::battery
