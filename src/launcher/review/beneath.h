// Opening a path below a directory descriptor without ever leaving it: openat2 with
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV. The review
// commands read an upper layer the agent wrote and write into a host tree the agent could
// read: neither may steer a lookup elsewhere through a symlink, "..", or a mount.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>

#include <string>

#include "common/unique_fd.h"

namespace cordon::review {

// openat2(root_fd, relative, flags | O_CLOEXEC, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
// RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV). `relative` "" or "." opens root_fd's directory
// itself. Invalid UniqueFd with errno set on failure (ELOOP for a symlink anywhere on the path,
// EXDEV for a mount, EXDEV/ENOENT for a path leaving root_fd).
UniqueFd open_beneath(int root_fd, const std::string& relative, int flags, mode_t mode = 0);

// The directory holding `relative`'s last component, opened beneath root_fd as above
// (O_DIRECTORY | O_PATH unless `flags` say otherwise), and that component. "a/b/c" -> (a/b, "c").
struct ParentAndName {
  UniqueFd parent;
  std::string name;
};
ParentAndName open_parent_beneath(int root_fd, const std::string& relative, int flags = O_PATH);

}  // namespace cordon::review
