// Filesystem helpers for the probes: what the launcher exposes by design (so finding it is
// not an escape), tmpfs detection, and reversible marker files.
#pragma once

#include <string>
#include <vector>

#include "probe/context.h"
#include "probe/probe.h"

namespace cordon::probe {

// Paths the sandbox exposes on purpose: the workspace, configured writable paths, the active
// agent's home entries, home.keep_read_only entries, libexec (from the session file when there is one;
// the workspace and this binary's directory otherwise).
std::vector<std::string> exposed_paths(const Context& ctx);
bool is_exposed(const Context& ctx, const std::string& path);

// statfs says tmpfs: a sandbox-private scratch mount (writes there do not reach the host).
bool on_tmpfs(const std::string& path);

// Creates dir/NAME exclusively (never follows a symlink) and removes it again.
// Returns 0 when it could be created, else the errno.
int create_and_remove(const std::string& dir, const std::string& name);

// Reads `path` and records the outcome: a non-empty read is ESCAPED ("N bytes"), an empty
// file is BLOCKED ("empty (masked)"), an error is BLOCKED with its errno. Returns the errno
// (0 when read).
int read_attempt(const std::string& path, Tally& tally, const std::string& label);

}  // namespace cordon::probe
