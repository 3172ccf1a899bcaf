// Permissions a session leaves for other users. The sandbox owns what it may write, so it can
// chmod the agent's state entries, their control entries and the workspace's git dirs group-
// or world-writable, set a set-user-ID bit, or add an ACL granting write to someone else; on
// the host, any other local user could then plant what the operator runs next (a hook, an MCP
// server, a setuid-to-the-operator binary). After the session (and at the crash sweep), every
// entry below those roots that the session changed (its inode change time is at or after the
// launch: chmod, setfacl, a write or a rename all set it, and nothing without privilege can
// set it back) and that is loose is tightened: group and other write, set-user-ID and
// set-group-ID (files) removed, write-granting ACLs removed. An entry unchanged since before
// the launch keeps whatever it had. Nothing is followed: links are skipped, every step is
// relative to an open directory.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "launcher/section/teardown_audit.h"

namespace cordon {

struct PermissionRoot {
  std::string path;       // absolute host path
  bool recursive = true;  // false: only the entry itself (the workspace's own directory)
};

struct PermissionBaseline {
  long long since_ns = 0;  // CLOCK_REALTIME a second before the sandbox could run
  // The operator's own private group (named as the user, no other members): group write on
  // it reaches nobody else, so umask 002 systems keep it. nullopt: every group counts.
  std::optional<gid_t> private_group;
  std::vector<PermissionRoot> roots;
};

// The mode bits of `mode` that give others a way in (pure): S_IWOTH; S_IWGRP unless `gid` is
// the private group; S_ISUID, and S_ISGID on a non-directory (on a directory it only picks
// the group of new entries).
mode_t loose_mode_bits(mode_t mode, gid_t gid, const std::optional<gid_t>& private_group);

// Whether a POSIX ACL xattr value (system.posix_acl_access or _default) grants write to a
// named user or group, or to the group class or others beyond `loose_mode_bits` (pure). A
// value that cannot be parsed counts as granting (it is removed).
bool acl_grants_write(const std::string& xattr_value, gid_t owning_group, const std::optional<gid_t>& private_group);

// Now (a second early), over `roots`.
PermissionBaseline permission_baseline(std::vector<PermissionRoot> roots, std::optional<gid_t> private_group);

// At most this many entries are looked at below all roots together; a walk stopped by the
// bound says so in `problems`.
inline constexpr size_t kMaxPermissionEntries = 200000;

// Tightens what the session loosened (see above). Items have kind "permissions", their detail
// says what was removed ("mode 0777 -> 0755", "ACL"); what could not be reset is a problem.
FootholdAudit reset_loose_permissions(const PermissionBaseline& baseline);

// The stderr line of one item, without "cordon: ".
std::string permission_line(const AuditItem& item);

}  // namespace cordon
