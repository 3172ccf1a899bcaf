// `cordon shim install|status|remove`: typing an agent's name runs it under cordon.
// The real binary moves (or is linked) under libexec/cordon/agents/, read-only inside every
// sandbox; a small shim takes its place first on PATH. Inside a sandbox the shim execs the
// real binary directly, so sandboxes never nest.
#pragma once

#include <string>
#include <vector>

namespace cordon {

struct ShimPaths {
  std::string shim_dir;    // where shims go: the directory of the cordon binary
  std::string agents_dir;  // libexec/cordon/agents
  std::string cordon;      // the cordon binary the shim runs
};

ShimPaths default_shim_paths();

// Where a real agent binary is looked for when --binary is not given (fixed, no $PATH).
std::vector<std::string> agent_search_dirs(const ShimPaths& paths);

// The shim script for `agent` (pure).
std::string render_shim(const std::string& agent, const ShimPaths& paths);

// Each throws cordon::Error with the fix; install and remove need root.
void shim_install(const std::string& agent, const std::string& binary, const ShimPaths& paths);
void shim_remove(const std::string& agent, const ShimPaths& paths);
std::string shim_status(const ShimPaths& paths);

}  // namespace cordon
