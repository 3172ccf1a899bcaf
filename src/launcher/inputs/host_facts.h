// Facts about the host that the plan depends on, gathered once before planning.
// Gathering has side effects (reads the filesystem); planning from facts is pure.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/landlock_abi.h"
#include "launcher/inputs/cgroup_hierarchy.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/network_facts.h"
#include "launcher/inputs/path_identity.h"
#include "launcher/inputs/root_view.h"
#include "launcher/inputs/sandbox_access.h"
#include "launcher/inputs/workspace_tree.h"

namespace cordon {

struct LaunchRequest {
  std::string workspace;                     // --workspace, "" = config or cwd
  std::string agent;                         // --agent, "" = "generic"
  std::vector<std::string> command;          // after "--"
  std::string config_path;                   // the file the config came from
  std::vector<std::string> limit_overrides;  // --limit NAME=VALUE (may only lower)
};

// Where a profile's control entry comes from on the host (AgentProfile::control).
struct ControlEntryFact {
  std::string source;  // the host path bound read-only ("" = the entry does not exist)
  // Set when a component of the entry below the state entry holding it is a symbolic link
  // (the path of that link): the sandbox writes there, so a link could have been planted to
  // expose another file; it is refused, never followed.
  std::string link;
};

struct HostFacts {
  uid_t uid = 0;
  gid_t gid = 0;
  // The account's private group (named as the user, no other member listed): group write on
  // it reaches nobody else (fs/loose_permissions.h). nullopt: the group is shared, or unknown.
  std::optional<gid_t> private_group;
  std::string user;
  std::string home;
  // The account's own home (the password database's) when $HOME names another directory
  // (`sudo -E`, a CI override): hidden too, so "" when it is the same, "/" or unknown.
  std::string account_home;
  std::string cwd;
  std::string workspace;        // the chosen workspace, resolved (realpath); "" if it does not exist
  std::string workspace_asked;  // as given, for error messages
  // Whether the session's identity (this uid and groups, no capabilities) may write and enter
  // the workspace: root in a directory another user owns may not.
  SandboxAccess workspace_access;
  std::vector<std::pair<std::string, std::string>> env;  // the launcher's environment
  std::set<std::string> existing_paths;                  // every candidate path that exists
  std::set<std::string> directories;                     // the subset that are directories
  std::string bwrap_path;                                // "" = not found
  std::string libexec_dir;
  std::string launcher_dir;                                 // the directory of the running cordon binary
  std::map<std::string, std::string> real_writable;         // filesystem.writable entries, symlinks resolved
  std::map<std::string, std::string> real_home_entries;     // the profiles' existing home entries, resolved
  std::map<std::string, ControlEntryFact> control_entries;  // the profiles' control entries, by path
  // The workspace's, the writable paths' and the home entries' other names and the writable
  // mounts below them, by resolved path; the identities of those and of the home, cordon's
  // directories and their ancestors (inputs/path_identity.h).
  std::map<std::string, PathNames> path_names;
  std::map<std::string, FileId> path_ids;
  std::string mounts_unreadable;  // why /proc/self/mountinfo could not be read ("" = it was)
  // [home] caches entry -> its directory in cordon's store, made at launch ("" = not made).
  std::map<std::string, std::string> cache_sources;
  std::string git_user_name;  // from the host's git config, if any
  std::string git_user_email;
  std::map<std::string, std::string> namespaces;  // "pid" -> "pid:[N]" of the launcher
  std::string resolv_conf_target;                 // set when /etc/resolv.conf links into /run
  std::vector<cgroup::Hierarchy> cgroups;         // the launcher's own cgroup hierarchies
  // The first of the launcher's stdin, stdout, stderr that is a terminal ("major:minor"; "" =
  // none), and which of the three are terminals (bit N = fd N): they get the private pty.
  std::string terminal_device;
  unsigned terminal_fds = 0;
  // What the workspace holds of git dirs and [workspace] protect entries, as read once
  // (workspace/workspace_plan.h snapshot_workspace_tree); the footholds are planned from it.
  TreeSnapshot workspace_tree;
  std::string last_verify;            // "PASS at TIME" / "FAIL (N) at TIME" from the state directory
  std::vector<RootEntry> view_roots;  // the system view's roots on this host (view = "system")
  // Entries of /etc other users cannot read (/etc/ssl/private, ...): masked for a root launch,
  // whose uid owns them; gathered only then.
  std::vector<PrivateEntry> private_etc;
  // The host's network, when the mode reads it (network/network_plan.h: needs_network_facts).
  NetworkFacts network;
  // The kernel's Landlock (its ABI, or why there is none), asked when [sandbox] landlock is on.
  landlock::Support landlock;

  bool exists(const std::string& path) const { return existing_paths.count(path) != 0; }
  bool is_dir(const std::string& path) const { return directories.count(path) != 0; }
  const std::string* env_value(const std::string& name) const;
};

// The paths whose existence the plan asks about for this config and request.
std::vector<std::string> candidate_paths(const Config& config, const LaunchRequest& request, const std::string& home,
                                         const std::string& cwd);

HostFacts gather_host_facts(const Config& config, const LaunchRequest& request);

// The state entry of `profile` (relative to the home) a control entry lies in; "" = none.
std::string state_entry_holding(const AgentProfile& profile, const std::string& control_entry);

// Fills real_home_entries and control_entries for `profile`'s entries (again after the
// launch made the missing ones).
void note_home_entries(const AgentProfile& profile, HostFacts& f);

// The real binary of an agent profile: its configured path, else for a shipped profile the
// copy `cordon shim install` placed under libexec/cordon/agents/, else "" (none).
std::string agent_binary(const AgentProfile& profile, const HostFacts& facts);

// The session records' directory for this user (inputs/state_dirs.h).
std::string sessions_dir(const HostFacts& facts);

// The empty read-only file every mask binds (libexec/cordon/empty).
std::string mask_source(const HostFacts& facts);

// Reads user.name / user.email from a git config text (the [user] section only).
std::pair<std::string, std::string> parse_git_identity(const std::string& gitconfig_text);

}  // namespace cordon
