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

// Hands out planned descriptor numbers in order.
struct DataFiles {
  int next_fd;
  std::vector<DataFile> files;
  // Adds a file and returns its bwrap arguments.
  std::vector<std::string> add(const std::string& dest, std::string content);
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

// The workspace's part of the mount order (workspace/workspace_plan.h makes it; fs/ places it
// at its step): the workspace bound read-write by descriptor at the same path, then the
// read-only binds over it (its footholds), in bwrap's order.
struct WorkspaceMounts {
  std::string path;
  std::vector<std::string> read_only_args;
};

}  // namespace cordon
