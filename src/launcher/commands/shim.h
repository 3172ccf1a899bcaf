// `cordon shim install|status|remove`: typing an agent's name runs it under cordon.
// The real binary moves (or is linked) under libexec/cordon/agents/, read-only inside every
// sandbox; a small shim takes its place first on PATH. Inside a sandbox the shim execs the
// real binary directly, so sandboxes never nest.
#pragma once

#include <string>
#include <vector>

namespace cordon {

struct ShimPaths {
  std::string shim_dir;    // where shims go: shim_dir_for(the cordon binary's directory)
  std::string agents_dir;  // libexec/cordon/agents
  std::string cordon;      // the cordon binary the shim runs
};

ShimPaths default_shim_paths();

// Where shims go for a cordon installed in `cordon_dir`: that directory (/usr/local/bin for a
// source install), except for a distribution's /usr/bin (the Debian package), where shims go
// to /usr/local/bin: that directory comes first on PATH and is where `npm install -g` puts
// the agents, so a shim in /usr/bin would be shadowed by the very agent it wraps.
std::string shim_dir_for(const std::string& cordon_dir);

// For claude and codex: the one command each user runs, outside cordon, to add the shipped
// verify-sandbox audit where the agent finds it (a control directory, read-only inside, so it
// cannot be added from a session); "" for other agents or when it is not installed.
std::string audit_command_hint(const std::string& agent, const ShimPaths& paths);

// Where a real agent binary is looked for when --binary is not given: the shim directory,
// then each absolute entry of `path_env` ($PATH), then /usr/local/bin, /usr/bin, /opt/bin.
std::vector<std::string> agent_search_dirs(const ShimPaths& paths, const std::string& path_env = "");

// The home directory `path` lies in (a user's home from the password database, /root, or
// /home), or "": a binary there cannot be shimmed, since every sandbox hides the homes.
std::string home_containing(const std::string& path);

// Whether typing an agent's name still runs its shim.
struct ShimHealth {
  std::string agent;
  std::string shim;         // where the shim was installed
  bool replaced = false;    // the file there is no longer cordon's shim (an `npm install -g` over it)
  std::string shadowed_by;  // an executable of the same name earlier on `path_env`, or ""
};
// Every installed shim, judged against `path_env`.
std::vector<ShimHealth> shim_health(const ShimPaths& paths, const std::string& path_env);
// What is wrong with `h` and how to fix it; "" when typing the name runs the shim.
std::string shim_problem(const ShimHealth& h);

// The shim script for `agent` (pure).
std::string render_shim(const std::string& agent, const ShimPaths& paths);

// Each throws cordon::Error with the fix; install and remove need root.
void shim_install(const std::string& agent, const std::string& binary, const ShimPaths& paths);
void shim_remove(const std::string& agent, const ShimPaths& paths);
std::string shim_status(const ShimPaths& paths);

}  // namespace cordon
