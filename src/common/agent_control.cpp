#include "common/agent_control.h"

#include <map>

namespace cordon {

const std::vector<std::string>& shipped_control_entries(const std::string& agent) {
  // Claude Code: user settings (hooks, MCP servers, permissions), memory, slash commands,
  // sub-agents, skills, hook scripts, plugins, output styles, `claude migrate-installer`'s
  // local install, user rules (~/.claude/rules/*.md, loaded like CLAUDE.md), key bindings (a
  // key may run a slash command), workflows and routines, and the background daemon's
  // directory (its dispatch/ requests name commands it runs when it starts). Codex:
  // config.toml (MCP servers, notify command, profiles), instructions (AGENTS.override.md
  // takes precedence over AGENTS.md), prompts, exec-policy rules, skills, the packages it
  // unpacks and runs, hooks and plugins, the app-server daemon's pid files and settings and
  // the TUI's link to its socket (app-server-control/: a bare Codex run starts that daemon
  // outside any sandbox and trusts what it finds there), .env (loaded into the environment of
  // every process it starts: an LD_PRELOAD there runs), environments.toml (where its commands
  // run), sub-agents and memory extensions (instructions its memory step follows).
  // Gemini CLI: settings (MCP servers, tool discovery commands, hooks), memory, commands,
  // extensions, policies, skills, sub-agents and .env (loaded into its environment: a
  // GEMINI_SYSTEM_MD there replaces its system prompt).
  // Reviewed against Claude Code 2.1.197, Codex 0.171.0 and Gemini CLI 0.61.0 run bare (each
  // file above planted and seen used, or read in the agent's own code).
  static const std::map<std::string, std::vector<std::string>> entries = {
      {"claude",
       {".claude/settings.json", ".claude/CLAUDE.md", ".claude/commands", ".claude/agents", ".claude/skills",
        ".claude/hooks", ".claude/plugins", ".claude/output-styles", ".claude/local", ".claude/rules",
        ".claude/keybindings.json", ".claude/workflows", ".claude/routines", ".claude/daemon"}},
      {"codex",
       {".codex/config.toml", ".codex/AGENTS.md", ".codex/AGENTS.override.md", ".codex/prompts", ".codex/rules",
        ".codex/skills", ".codex/packages", ".codex/hooks.json", ".codex/plugins", ".codex/app-server-daemon",
        ".codex/app-server-control", ".codex/.env", ".codex/environments.toml", ".codex/agents",
        ".codex/memories_extensions"}},
      {"gemini",
       {".gemini/settings.json", ".gemini/GEMINI.md", ".gemini/commands", ".gemini/extensions", ".gemini/policies",
        ".gemini/skills", ".gemini/agents", ".gemini/.env"}},
  };
  static const std::vector<std::string> none;
  auto it = entries.find(agent);
  return it == entries.end() ? none : it->second;
}

const std::vector<ControlKeys>& shipped_control_keys(const std::string& agent) {
  // ~/.claude.json: user-scope MCP servers (commands Claude Code starts), each project's MCP
  // servers and which of the workspace's .mcp.json servers run, and the tools each project
  // may run without asking.
  // ~/.claude/.config.json, when it exists, replaces ~/.claude.json whole (Claude Code reads
  // it first): the same keys, and a session that creates it has it removed after the session.
  static const std::vector<std::string> pointers = {
      "/mcpServers", "/projects/*/mcpServers", "/projects/*/enabledMcpjsonServers",
      "/projects/*/enableAllProjectMcpServers", "/projects/*/allowedTools"};
  static const std::vector<ControlKeys> claude = {{".claude.json", pointers}, {".claude/.config.json", pointers}};
  static const std::vector<ControlKeys> none;
  return agent == "claude" ? claude : none;
}

const std::vector<std::string>& shipped_steering_state(const std::string& agent) {
  // Claude Code: ~/.claude/projects/<project>/memory/ (MEMORY.md and the topic files it loads
  // at the start of every session in that project) and ~/.claude/agent-memory/ (user-scope
  // sub-agent memory). Codex: ~/.codex/memories/ (memory_summary.md and MEMORY.md, read into
  // later sessions). Gemini CLI: ~/.gemini/tmp/<project>/memory/ (MEMORY.md, GEMINI.md,
  // loaded at every session start in that project).
  static const std::map<std::string, std::vector<std::string>> patterns = {
      {"claude", {".claude/projects/*/memory", ".claude/agent-memory"}},
      {"codex", {".codex/memories"}},
      {"gemini", {".gemini/tmp/*/memory"}},
  };
  static const std::vector<std::string> none;
  auto it = patterns.find(agent);
  return it == patterns.end() ? none : it->second;
}

const std::vector<std::string>& agents_with_control_entries() {
  static const std::vector<std::string> names = {"claude", "codex", "gemini"};
  return names;
}

}  // namespace cordon
