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

// The names shipped_control_entries knows.
const std::vector<std::string>& agents_with_control_entries();

}  // namespace cordon
