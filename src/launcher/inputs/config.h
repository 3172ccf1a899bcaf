// The operator's configuration: /etc/cordon/cordon.toml, parsed strictly.
// Unknown keys, wrong types, relative paths and duplicates are errors naming file:line:column.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/network_modes.h"
#include "common/terminal_classes.h"

namespace cordon {

// One agent profile: what a named agent needs inside the sandbox.
struct AgentProfile {
  std::string name;
  std::string binary;  // absolute path of the real agent binary; empty = none
  // Entries relative to $HOME bound back read-write: the agent's state (logins, history,
  // sessions, caches), kept across sessions.
  std::vector<std::string> home;
  std::vector<std::string> env;  // extra environment names this agent needs
  bool allow_ptrace = false;     // let debuggers inside the sandbox use ptrace
  bool builtin = false;          // shipped profile: binary defaults to libexec/cordon/agents/NAME
  // Inserted after the program name when the command runs this agent: how it runs correctly
  // inside cordon (its own sandbox, which cannot work without nested user namespaces, off).
  std::vector<std::string> args = {};
  // network.mode = "allowlist": the destinations this agent needs (its API, its login),
  // egress rules (common/egress_rules.h); [network] allow adds to them.
  std::vector<std::string> network_allow = {};
  // Entries relative to $HOME bound read-only, over the state entries they lie in: the agent's
  // control (settings, hooks, commands, plugins, instructions, executables it runs). Written
  // inside, they would run the next time the agent starts outside cordon.
  std::vector<std::string> control = {};
};

// The shipped profiles: claude, codex, gemini and generic.
const std::map<std::string, AgentProfile>& builtin_agent_profiles();

enum class ProcMode { Fresh, HostReadOnly };

// What of the host's root the sandbox sees. System: an allow-listed view (/usr and its
// usr-merge links, /etc with masks, /sys, plus [filesystem] read); everything else absent.
// Host: the whole root read-only (the weaker view before 0.4; labelled so everywhere).
enum class RootView { System, Host };

inline constexpr long long kDefaultTmpfsSizeBytes = 1LL << 30;  // 1 GiB

// The configuration by section, one struct per [section] of cordon.toml: a function that
// reads one section takes that struct (with the ConfigSource for its messages), never the
// whole Config, so its signature says what it depends on.

// [workspace]
// [workspace] mode: "direct" binds the host tree read-write; "review" gives the session an
// overlay whose writes land in cordon's own upper layer until a person applies them
// (launcher/review/).
enum class WorkspaceMode { Direct, Review };

struct WorkspaceConfig {
  WorkspaceMode mode = WorkspaceMode::Direct;
  std::string root;           // "" = the current directory at launch
  bool hide_siblings = true;  // tmpfs over the workspace's parent (other projects)
  // Paths relative to the workspace bound read-only when they exist (host tools run what they
  // hold); git's config and hooks are protected whatever this says (workspace/footholds.h).
  std::vector<std::string> protect = {".envrc", ".vscode", ".idea", ".devcontainer"};
};

// [environment]
struct EnvironmentConfig {
  std::vector<std::string> allow;  // extra names (a trailing '*' matches a prefix)
  std::vector<std::string> deny;   // wins over every allow
};

// [home]
struct HomeConfig {
  std::vector<std::string> keep_read_only;  // entries bound back read-only for every profile
  // Directories bound read-write for every profile from cordon's own store, one per profile
  // (never the host's: the host's tools do not read what a session leaves there).
  std::vector<std::string> caches;
};

// [filesystem]
struct FilesystemConfig {
  std::vector<std::string> writable;  // absolute paths bound read-write after the masks
  std::vector<std::string> masks;     // absolute file paths masked with an empty file
  ProcMode proc = ProcMode::Fresh;
  RootView view = RootView::System;
  std::vector<std::string> read;  // absolute host paths added to the system view, read-only
  // Size cap of each writable tmpfs (/tmp, /var/tmp, /run, the home): host RAM otherwise.
  long long tmpfs_size_bytes = kDefaultTmpfsSizeBytes;
};

// [git]
struct GitIdentityConfig {
  std::string name;
  std::string email;
};

// [network]
struct NetworkConfig {
  NetworkMode mode = NetworkMode::EgressJail;  // mode (egress_jail = false: Host)
  std::vector<std::string> allow;              // allowlist: rules added to the profile's
  std::vector<std::string> deny;               // allowlist: rules that win over every allow
  std::vector<std::string> allow_ip;           // jail: IPv4 addresses or CIDRs, validated
  std::string dns_forward = "auto";            // jail: "auto" or an IPv4 address
  // allowlist: the patterns within which a user may add rules for one run (`cordon run
  // --allow RULE`); empty = none may be added.
  std::vector<std::string> user_allow;
  // The rules this run added with --allow (already in `allow`), for the record.
  std::vector<std::string> run_allow;
};

// [limits]
struct LimitsConfig {
  std::map<std::string, long long> values;
  std::vector<std::string> best_effort;  // limits allowed to go unenforced on this host
  // Keys in `values` that hold their built-in default (LimitKey::default_value), not a value
  // the file set: recorded as not enforced where the host cannot hold them.
  std::vector<std::string> defaulted;
};

// [terminal]: the private pty between the sandbox and the operator's terminal
struct TerminalConfig {
  bool private_pty = true;                             // off: the sandbox writes to the operator's terminal itself
  TerminalPassSet pass = default_terminal_pass_set();  // the filter's classes let through
  bool filter_pipes = false;  // on: the sandbox's stdout/stderr that are not a terminal go through the filter too
};

// [records] export: where each record line also goes, for a log collector (record/record_export.h).
struct RecordExportTarget {
  enum class Kind { None, Stderr, File, UnixSocket };
  Kind kind = Kind::None;
  std::string path;     // File: an absolute path (a file, a FIFO, /proc/1/fd/1); UnixSocket: the socket's
  std::string spelled;  // as configured, for messages and the receipt
};

// [records]: the session records' retention (applied at every launch and by `sessions prune`)
// and their export.
struct RecordsConfig {
  long long keep = 1000;     // at most this many ended records
  long long keep_days = 90;  // and none older than this many days (0 = no age bound)
  RecordExportTarget export_to;
  bool transcript = false;                      // keep what the sandbox wrote (terminal/transcript.h)
  long long transcript_max_bytes = 16LL << 20;  // per session; past it chunks are dropped and counted
};

// [review]: the scan every review-mode diff goes through before `cordon apply`
// (launcher/review/review_scan.h). Adds to the shipped rules, never replaces them.
struct ReviewTokenRule {
  std::string name;                             // the finding's rule name
  std::string prefix;                           // literal bytes the token starts with
  std::string charset;                          // what follows: characters and ranges, "A-Za-z0-9_-"
  long long min_length = 16, max_length = 256;  // of the part after the prefix
};
struct ReviewConfig {
  long long size_cap_bytes = 10LL << 20;  // a changed file over it is a scope finding
  std::vector<std::string> scope;         // more scope globs (fnmatch on the workspace-relative path)
  std::vector<ReviewTokenRule> secrets;   // more secret token rules
};

// [sandbox] landlock: the second filesystem layer (launcher/landlock/ruleset_plan.h). "auto"
// applies what the kernel has and records what it lacks; "required" refuses to launch without a
// usable Landlock; "off" applies nothing, and every record says the session had one layer.
enum class LandlockMode { Auto, Required, Off };

struct SandboxConfig {
  LandlockMode landlock = LandlockMode::Auto;
};
const char* landlock_mode_name(LandlockMode mode);  // "auto", "required", "off"

// Where the configuration came from: its file, and where in it each value was set. A refusal
// that planning finds in a value (a writable path that does not exist on this host, 0.0.0.0/0
// in allow_ip) names it as the parser's own messages do: "FILE:LINE:COL: KEY: PROBLEM".
struct ConfigSource {
  std::string file;  // the file read, or the missing one whose defaults hold ("" = built-in defaults)
  // "network.dns_forward", or a list's item as "filesystem.writable[1]" (config_item_key) ->
  // "FILE:LINE:COL" of the value; a key the file did not set is absent.
  std::map<std::string, std::string> places;

  // "FILE:LINE:COL: KEY: " of the value at `key` (of its item `index`); "FILE: KEY: " for a
  // value the file did not set (a built-in default).
  std::string prefix(const std::string& key, std::optional<size_t> index = std::nullopt) const;
  // A refusal caused by that value: the prefix and `problem`, one line (control characters
  // escaped, as the values it echoes may hold them); exit status 2 (125 under `run`).
  ConfigError error(const std::string& key, std::optional<size_t> index, const std::string& problem,
                    const std::string& fix) const;
};

// "KEY[INDEX]": where a list's item is recorded in ConfigSource::places.
std::string config_item_key(const std::string& key, size_t index);

struct Config {
  ConfigSource source;  // the file it was read from ("" = built-in defaults) and where each value was set
  bool file_found = false;

  WorkspaceConfig workspace;
  EnvironmentConfig environment;
  HomeConfig home;
  FilesystemConfig filesystem;
  GitIdentityConfig git;
  NetworkConfig network;
  LimitsConfig limits;
  TerminalConfig terminal;
  RecordsConfig records;
  ReviewConfig review;
  SandboxConfig sandbox;
  // [agents.NAME]
  std::map<std::string, AgentProfile> agents;

  // The default profile name when --agent is not given.
  std::string default_agent = "generic";

  const AgentProfile& agent(const std::string& name) const;  // throws cordon::Error if unknown
  // The profile a launch uses: `agent_flag` (--agent) when given; else a shipped agent profile
  // when the command's basename names one (`cordon run -- claude` is the claude profile);
  // else "generic".
  std::string active_agent(const std::string& agent_flag, const std::vector<std::string>& command) const;
};

// Built-in defaults (what the shipped etc/cordon.toml spells out).
Config default_config();

// Parses TOML text; `source_name` is used in error messages. Throws ConfigError.
Config parse_config(const std::string& text, const std::string& source_name);

// Reads `path`. A missing file yields the defaults (recorded as such); an unreadable or
// invalid one, or a path that is not a regular file (a directory), throws ConfigError.
Config load_config(const std::string& path);

// A release reads only the fixed path: a --config override would let whoever controls the
// launcher's arguments (a shim, a devcontainer script, an agent starting a nested cordon)
// swap the policy. Throws cordon::Error (exit 2) for another path unless `test_build`.
void refuse_config_override(const std::string& path, bool test_build);

// Every key the schema accepts, dotted ("network.allow_ip", "agents.*.binary"):
// used to check that docs/configuration.md documents each one.
std::vector<std::string> config_schema_keys();

}  // namespace cordon
