// The contract between the mechanisms and the plan's assembler (plan/plan.h): the pieces a
// mechanism's section hands over (its environment, its generated files, the host paths it
// binds by descriptor). It lives below the mechanisms so that each one builds its own section
// without depending on the assembler, and the assembler orders them without knowing how each
// was made. Descriptor numbers are handed out by the assembler, in bwrap's order.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cordon {

// Environment variables in the order bwrap sets them (--setenv NAME VALUE).
using EnvList = std::vector<std::pair<std::string, std::string>>;

// A file whose content the launcher generates, handed to bwrap as a sealed memfd at a planned
// descriptor number (--ro-bind-data FD DEST): no temporary file touches the host.
struct DataFile {
  std::string dest;  // path inside the sandbox
  std::string content;
  int fd = -1;  // planned descriptor number in the bwrap child
};

// A host path bound by descriptor (--bind-fd / --ro-bind-fd): the launcher opens `source`
// once, without following a symbolic link, checks that the descriptor is still that path
// (fs/bound_paths.h), and bwrap binds the descriptor, verifying the mount is that inode. A
// swap of any component between the plan's checks and the mount cannot redirect the bind.
struct BoundPath {
  std::string source;      // resolved host path, validated by the plan
  std::string dest;        // where it appears inside
  int fd = -1;             // planned descriptor number in the bwrap child
  bool read_only = false;  // an agent's control entry (--ro-bind-fd)
};

// One step of the sandbox's mount plan, as data: fs/ orders the steps (its numbered steps in
// fs/mounts.cpp), the workspace hands over its own, and the assembler renders them as bwrap's
// arguments, handing out descriptor numbers. A weakening (plan/weaken.h) picks steps by role.
enum class MountOp {
  RoBind,     // --ro-bind SOURCE DEST
  Bind,       // --bind SOURCE DEST
  BindFd,     // --bind-fd FD DEST (a BoundPath: opened by the launcher, no link followed)
  RoBindFd,   // --ro-bind-fd FD DEST
  Symlink,    // --symlink SOURCE DEST
  Dev,        // --dev DEST (a fresh /dev)
  DevBind,    // --dev-bind SOURCE DEST (the host's devices)
  Proc,       // --proc DEST
  Tmpfs,      // [--size N] --tmpfs DEST
  RemountRo,  // --remount-ro DEST
  DataFiles,  // every generated file (section.h DataFile), here: --perms 0444 --ro-bind-data FD DEST
};

enum class MountRole {
  SystemRoot,     // the system view's roots, or the whole host root (view = "host")
  Devices,        // /dev
  Proc,           // /proc
  ProcGuard,      // /proc/sys, /proc/sysrq-trigger read-only over the fresh /proc
  RuntimeTmpfs,   // /tmp, /run, /var/tmp, /run/user, /run/secrets
  ResolvTarget,   // /etc/resolv.conf's target under /run, kept under the /run mask
  Siblings,       // the tmpfs over the workspace's parent (other projects)
  ReadPath,       // [filesystem] read
  AccountHome,    // the account's own home when $HOME is another
  HomeTmpfs,      // the home, inverted
  HomeKeep,       // [home] keep (read-only)
  HomeEntry,      // the profile's state entries (read-write)
  Cache,          // [home] caches
  Control,        // the profile's control entries (read-only over the state)
  Workspace,      // the workspace (read-write)
  Foothold,       // the workspace's footholds (read-only)
  FootholdPin,    // a git dir pinned onto itself
  Mask,           // cordon's empty file over a credential file
  PrivateMask,    // what only root may read in /etc (a root launch)
  Writable,       // [filesystem] writable
  SessionDir,     // /run/cordon and the generated files in it
  Libexec,        // cordon's helpers, read-only
  AgentBinary,    // a configured agent binary outside the view
  ReadOnlyAfter,  // the remounts that make a tmpfs read-only once everything below it is mounted
  TestAddition,   // a test weakening's own bind
};

struct MountStep {
  MountOp op;
  std::string source;  // binds: the host path; a symlink: its target
  std::string dest;    // inside
  MountRole role;
  long long size = 0;  // Tmpfs: its cap in bytes (0 = none)
};

}  // namespace cordon
