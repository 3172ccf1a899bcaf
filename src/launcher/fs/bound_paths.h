// Opening the paths a plan binds by descriptor (fs/mounts.h BoundPath). The plan checked each
// path by name; the launcher opens it here exactly once, walking one component at a time
// without following a symbolic link, and confirms the descriptor is still at that path. bwrap
// then binds the descriptor (--bind-fd) and itself verifies the mount is the same inode. So
// a symlink or rename swap between the check and the mount fails the launch instead of
// binding something else (the home, /etc) read-write.
#pragma once

#include "common/unique_fd.h"
#include "launcher/fs/mounts.h"

namespace cordon {

// An O_PATH descriptor of `bound.source`. Throws cordon::Error (what + fix) when a component
// is a symbolic link, is missing, or the descriptor no longer names that path.
UniqueFd open_bound_path(const BoundPath& bound);

}  // namespace cordon
