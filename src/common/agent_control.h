// The shipped agents' control entries: what each agent reads to decide what to run (settings
// with hooks and MCP servers, commands, sub-agents, skills, plugins, instructions, its own
// unpacked executables). The launcher binds them read-only over the agent's read-write state
// directory; the battery (check 32) and cordon-probe (probe 61) hold a session to that list,
// and use it for a sandbox whose session file they cannot read.
#pragma once

#include <string>
#include <vector>

namespace cordon {

// Entries relative to $HOME for "claude", "codex" and "gemini"; empty for any other name.
const std::vector<std::string>& shipped_control_entries(const std::string& agent);

// Control inside a state file: keys of a JSON file the agent rewrites as a whole (so it cannot
// be read-only) that make it run something on its next start (MCP servers) or grant what it
// may run unasked. `pointers` are JSON pointers where "*" stands for every member.
struct ControlKeys {
  std::string file;  // relative to $HOME
  std::vector<std::string> pointers;
};

// Claude Code's ~/.claude.json keys; empty for any other name.
const std::vector<ControlKeys>& shipped_control_keys(const std::string& agent);

// State by design that steers the agent's later sessions: the memory it loads into its
// prompts (Claude Code's per-project auto memory and its sub-agents' memory, Codex's
// memories). The agent writes it as it works, so it stays read-write; what a session added,
// changed or removed there is named at teardown (launcher/fs/steering_state.h). Patterns
// relative to $HOME; a "*" component stands for every directory at that level. Empty for any
// other name.
const std::vector<std::string>& shipped_steering_state(const std::string& agent);

// The names shipped_control_entries knows.
const std::vector<std::string>& agents_with_control_entries();

}  // namespace cordon
