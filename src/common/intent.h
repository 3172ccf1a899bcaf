// The session's intent: what the launcher meant to enforce, one typed schema. The plan fills
// it in; it is handed read-only to the battery and the probe inside the sandbox (the session
// file, /run/cordon/session) so they can compare reality against intent, shown by `cordon
// status`, and recorded in the session record's manifest. It holds no secrets (no env values).
// Serialized as one versioned JSON document (docs/schemas.md); the codec is in intent.cpp.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/network_modes.h"

namespace cordon {

inline constexpr const char* kSessionDir = "/run/cordon";
inline constexpr const char* kSessionFilePath = "/run/cordon/session";
inline constexpr const char* kGitConfigPath = "/run/cordon/gitconfig";
// A file the mounts let anyone read and no Landlock rule grants: readable only when no ruleset
// is in force (battery check 33). In bwrap's /dev, whose rules grant the nodes it makes only.
// It holds the Landlock rules cordon-landlock applies before the command
// (common/landlock_rules.h): the step reads them before its ruleset, the session cannot after.
inline constexpr const char* kLandlockSentinelPath = "/dev/.cordon-landlock";
// Where the rules are bound instead when /dev is not bwrap's (a test weakening binds the
// host's, which no file of cordon's may be written into).
inline constexpr const char* kLandlockRulesPath = "/run/cordon/landlock";

// The session file's "format" and major "version"; a reader refuses any other major version.
inline constexpr const char* kSessionFormat = "cordon-session";
inline constexpr int kSessionVersion = 2;

struct ConfigIntent {
  std::string path;        // the file the launcher read
  std::string fixed_path;  // the build-time fixed path
  bool found = false;      // false: built-in defaults
};

struct AgentIntent {
  std::string name;                       // the active profile
  std::vector<std::string> home;          // its home entries (state, read-write), relative to the home directory
  std::vector<std::string> control = {};  // its control entries (read-only inside), likewise
  std::string binary;                     // "" = the profile runs no agent binary
  std::vector<std::string> args = {};     // what cordon added after the agent's program name (its own sandbox off)
};

struct HomeIntent {
  std::string path;                         // the home directory (a fresh tmpfs)
  std::string account_path;                 // the account's own home when $HOME is another ("" = same)
  std::vector<std::string> keep_read_only;  // entries kept read-only for every profile
  std::vector<std::string> caches = {};     // [home] caches bound read-write from cordon's store
};

struct NetworkIntent {
  NetworkMode mode = NetworkMode::Host;  // Host: no confinement, nothing below applies
  // EgressJail only:
  std::vector<std::string> blackholes;  // prefixes, e.g. "10.0.0.0/8"
  std::vector<std::string> unreachable;
  std::vector<std::string> allow;  // /32 punches and allow-listed prefixes
  std::string gateway;
  std::string dns_forward;
  // Allowlist only: the proxy's endpoint inside ("127.0.0.1:3128") and its rules.
  std::string proxy;
  std::vector<std::string> proxy_allow;
  std::vector<std::string> proxy_deny;
  // Of proxy_allow, the rules this run added (`cordon run --allow`, within [network] user_allow).
  std::vector<std::string> proxy_run_allow;
  bool jailed() const { return mode == NetworkMode::EgressJail; }
  // A namespace of the session's own with loopback only (nothing routed out).
  bool loopback_only() const { return mode == NetworkMode::Allowlist || mode == NetworkMode::Offline; }
};

struct LimitsIntent {
  std::vector<std::string> values;                    // "nofile=1024", in the order applied
  std::map<std::string, std::string> cgroup_parents;  // "pids" -> the session cgroup's parent dir
  std::vector<std::string> not_enforced = {};         // "pids_max (why)": best-effort budgets this host cannot hold
};

struct TerminalIntent {
  // The launcher's own terminal (the first of its stdin, stdout, stderr that is one) as
  // "major:minor"; "" when none is a terminal.
  std::string operator_device;
  // On a terminal: the sandbox gets a private pty instead (terminal.private), and its output
  // reaches the operator's terminal only through the filter.
  bool private_pty = false;
  std::vector<std::string> pass;  // the filter's classes let through ([terminal] pass)
};

// What of the host's filesystem the sandbox sees besides the workspace and the home entries.
struct FilesystemIntent {
  std::string view = "system";              // "system" (allow-listed roots) or "host" (the whole root, weaker)
  std::vector<std::string> read;            // [filesystem] read: host paths added read-only
  std::vector<std::string> private_masked;  // root-only entries of /etc masked (a root launch)
  long long tmpfs_size_bytes = 0;           // each writable tmpfs's cap (0 = none)
};

// The second filesystem layer ([sandbox] landlock), as planned from the un-weakened mounts.
struct LandlockIntent {
  std::string mode = "off";                   // "auto", "required" or "off"
  int abi = 0;                                // the kernel's (0: no Landlock)
  bool applied = false;                       // a ruleset is applied in front of the command
  std::vector<std::string> rights = {};       // the filesystem rights it handles ("read_file", ...)
  std::vector<std::string> scopes = {};       // "abstract_unix_socket", "signal"
  std::vector<std::string> unavailable = {};  // what this kernel lacks: "truncate (ABI 3)", ...
  std::string why_not = {};                   // why nothing is applied, or ""
  // Whether an applied ruleset has the scope `name` ("signal", "abstract_unix_socket").
  bool scoped(const std::string& name) const {
    return applied && std::find(scopes.begin(), scopes.end(), name) != scopes.end();
  }
};

struct SessionIntent {
  ConfigIntent config;
  AgentIntent agent;
  HomeIntent home;
  std::string workspace;
  // "direct": the host's tree bound read-write; "review": an overlay whose writes land in
  // cordon's upper layer until a person applies them (docs/review.md). Check 34 holds it.
  std::string workspace_mode = "direct";
  std::vector<std::string> writable;  // host paths bound read-write
  FilesystemIntent filesystem;
  // Workspace paths bound read-only so host tools cannot be made to run planted code (git's
  // config and hooks, [workspace] protect entries); the protect entries absent at launch,
  // which the teardown audit names if they appear.
  std::vector<std::string> workspace_protected;
  std::vector<std::string> workspace_protect_absent;
  std::vector<std::string> env_names;  // names the launcher passed in
  std::string libexec;
  std::map<std::string, std::string> host_namespaces;  // "pid" -> "pid:[4026531836]"
  NetworkIntent network;
  LimitsIntent limits;
  TerminalIntent terminal;
  LandlockIntent landlock;
  std::string last_verify;  // outcome of the last `cordon verify` before this launch
};

// The host paths the session binds in on purpose, at the same path inside: the workspace,
// the writable paths, cordon's helpers, the kept and the profile's home entries and
// [filesystem] read. Both the launcher (is a command visible inside?) and battery check 30
// (is a present path one of these?) ask it.
std::vector<std::string> bound_on_purpose(const SessionIntent& intent);

// The session file's text: one JSON document with "format" and "version".
std::string serialize_session(const SessionIntent& intent);

// Returns nullopt (with *problem) for text that is not a session file this cordon reads:
// not JSON, another format, or another major version. Unknown members are ignored.
std::optional<SessionIntent> parse_session(const std::string& text, std::string* problem);

}  // namespace cordon
