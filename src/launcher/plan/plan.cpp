#include "launcher/plan/plan.h"

#include "common/build_config.h"
#include "common/credential_files.h"
#include "common/error.h"
#include "common/paths.h"
#include "launcher/fs/gitconfig.h"
#include "launcher/fs/mounts.h"
#include "launcher/inputs/state_dirs.h"
#include "launcher/plan/dangerous_paths.h"

namespace cordon {
namespace {

void refuse_newlines(const std::string& what, const std::string& path) {
  if (path.find('\n') != std::string::npos)
    throw Error(what + " path contains a newline: refusing it", "rename the directory");
}

// A profile's home entry is bound read-write where it really is: a link to /etc, the home
// itself or cordon's directories would make those writable.
void validate_home_entries(const AgentProfile& profile, const HostFacts& f, const std::vector<ProtectedPath>& list) {
  for (const auto& entry : profile.home) {
    const std::string path = f.home + "/" + entry;
    if (!f.exists(path)) continue;
    const std::string real = resolved_or_same(f.real_home_entries, path);
    if (std::string why = why_not_writable(real, f.home, list); !why.empty() || real == f.home)
      throw Error("agent \"" + profile.name + "\" home entry " + path + " resolves to " + real + ", which " +
                      (why.empty() ? "is $HOME" : why) + ": the sandbox could write there",
                  "make " + path + " a directory or file of its own, not a link to it");
  }
}

// A control entry must be bound read-only or be harmless where it is missing: missing in a
// state directory the sandbox writes, the agent could create it (a hook, a command) and it
// would run outside cordon; behind a link there, the link could have been planted.
void validate_control_entries(const AgentProfile& profile, const HostFacts& f) {
  for (const auto& entry : profile.control) {
    const std::string path = f.home + "/" + entry;
    auto it = f.control_entries.find(path);
    const ControlEntryFact fact = it == f.control_entries.end() ? ControlEntryFact{} : it->second;
    if (!fact.link.empty())
      throw Error("agent \"" + profile.name + "\" control entry " + path + " goes through the symbolic link " +
                      fact.link +
                      ", in a directory the sandbox can write: cordon binds control entries read-only "
                      "and follows no link there (a session could have planted it to expose another file)",
                  "replace the link by what it points to (cp -a --remove-destination \"$(readlink -f " + fact.link +
                      ")\" " + fact.link + "), or remove it if you did not make it");
    const std::string state = state_entry_holding(profile, entry);
    if (fact.source.empty() && !state.empty() && f.exists(f.home + "/" + state))
      throw Error("agent \"" + profile.name + "\" control entry " + path +
                      " does not exist and could not be made: the sandbox could create it in " + f.home + "/" + state +
                      ", and it would run outside cordon",
                  "create it yourself (an empty file or directory of that name), or fix the permissions of " + f.home +
                      "/" + state);
  }
}

// A cache is bound read-write from cordon's store: over an entry the profile keeps, protects
// or masks, or over the way to the workspace, it would replace or unprotect it.
void validate_caches(const Config& config, const AgentProfile& profile, const HostFacts& f) {
  std::vector<std::string> taken = profile.home;
  taken.insert(taken.end(), profile.control.begin(), profile.control.end());
  taken.insert(taken.end(), config.home.keep_read_only.begin(), config.home.keep_read_only.end());
  for (const auto& m : home_masked_files()) taken.push_back(m);
  for (const auto& cache : config.home.caches) {
    const std::string path = f.home + "/" + cache;
    for (const auto& entry : taken)
      if (path_within(path, f.home + "/" + entry) || path_within(f.home + "/" + entry, path))
        throw Error("cache " + cache + " (home.caches) overlaps the home entry " + entry +
                        ", which the profile keeps, protects or masks",
                    "remove it from home.caches in " + config.source_path);
    if (path_within(f.workspace, path))
      throw Error("cache " + cache + " (home.caches) holds the workspace " + f.workspace,
                  "remove it from home.caches in " + config.source_path);
  }
}

// A mask inside something the sandbox writes cannot hold across sessions: the agent can
// rename the masked file's parent, and the next session's mask covers nothing.
void validate_masks(const Config& config, const HostFacts& f) {
  std::vector<std::string> writable = {f.workspace};
  for (const auto& w : config.filesystem.writable) writable.push_back(resolved_or_same(f.real_writable, w));
  for (const auto& mask : config.filesystem.masks) {
    for (const auto& w : writable)
      if (path_within(mask, w))
        throw Error("mask " + mask + " (filesystem.masks) lies in " + w +
                        ", which the sandbox can write: renaming its parent would defeat the mask",
                    "keep that secret outside the workspace and the writable paths, or use another workspace");
  }
}

void validate(const Config& config, const AgentProfile& profile, const HostFacts& f) {
  if (f.bwrap_path.empty())
    throw Error("bubblewrap (bwrap) is not installed",
                "install it: apt-get install bubblewrap (cordon looks in /usr/bin, /usr/local/bin, /bin)");
  if (f.workspace.empty())
    throw Error("workspace " + f.workspace_asked + " does not exist",
                "create it, or pass --workspace DIR with an existing directory");
  if (!f.is_dir(f.workspace)) throw Error("workspace " + f.workspace + " is not a directory", "pass --workspace DIR");
  if (f.home.empty() || f.home == "/" || !f.is_dir(f.home))
    throw Error("home directory \"" + f.home + "\" is missing or is /: the home inversion needs one",
                "set HOME to an existing directory other than /");
  const std::string sessions = sessions_dir(f);
  const std::string state_dir = state_dir_of(sessions);
  const std::vector<ProtectedPath> protected_list = protected_paths(f.home, f.account_home, f.libexec_dir,
                                                                    f.launcher_dir, state_dir);
  if (std::string why = why_not_writable(f.workspace, f.home, protected_list); !why.empty())
    throw Error("workspace " + f.workspace + " " + why + ": the sandbox could write there",
                "use a project directory as the workspace (for example ~/src/app), not a system or shared "
                "directory, $HOME or one of its parents, or cordon's own directories");
  refuse_newlines("workspace", f.workspace);
  refuse_newlines("home", f.home);
  for (const auto& path : config.filesystem.writable) {
    if (!f.exists(path))
      throw Error("writable path " + path + " (filesystem.writable) does not exist",
                  "create it or remove it from " + config.source_path);
    auto resolved = f.real_writable.find(path);
    const std::string& real = resolved != f.real_writable.end() && !resolved->second.empty() ? resolved->second : path;
    if (std::string why = why_not_writable(real, f.home, protected_list); !why.empty())
      throw Error("writable path " + path + " (filesystem.writable) " + why + ": the sandbox could write there",
                  "remove it from filesystem.writable in " + config.source_path);
    refuse_newlines("writable", path);
  }
  validate_home_entries(profile, f, protected_list);
  validate_control_entries(profile, f);
  validate_caches(config, profile, f);
  validate_masks(config, f);
  for (const auto& path : config.filesystem.read)
    if (config.filesystem.view == RootView::System && !f.exists(path))
      throw Error("read-only path " + path + " (filesystem.read) does not exist",
                  "create it or remove it from " + config.source_path);
  if (!f.exists(mask_source(f)))
    throw Error("cordon's mask file " + mask_source(f) + " is missing",
                "reinstall cordon (cmake --install); masks bind this empty read-only file");
  // An operator-configured binary must exist; a shipped profile's default only when it runs.
  if (!profile.binary.empty() && !f.exists(profile.binary))
    throw Error("agent \"" + profile.name + "\" binary " + profile.binary + " does not exist",
                "install the agent, or fix agents." + profile.name + ".binary in " + config.source_path);
}

std::vector<std::string> namespace_args() {
  return {"--unshare-user",       "--unshare-pid",    "--unshare-ipc", "--unshare-uts", "--hostname",       "cordon",
          "--unshare-cgroup-try", "--disable-userns", "--cap-drop",    "ALL",           "--die-with-parent"};
}

SessionIntent describe_session(const Config& config, const AgentProfile& profile, const HostFacts& f,
                               const EnvList& env, const std::vector<std::string>& writable) {
  SessionIntent s;
  s.config.path = config.source_path;
  s.config.fixed_path = build::kConfigPath;
  s.config.found = config.file_found;
  s.agent.name = profile.name;
  s.agent.home = profile.home;
  s.agent.control = profile.control;
  s.home.keep_read_only = config.home.keep_read_only;
  for (const auto& cache : config.home.caches)
    if (auto it = f.cache_sources.find(cache); it != f.cache_sources.end() && !it->second.empty())
      s.home.caches.push_back(cache);
  s.home.path = f.home;
  s.home.account_path = f.account_home;
  s.workspace = f.workspace;
  s.writable = writable;
  s.filesystem.view = config.filesystem.view == RootView::System ? "system" : "host";
  s.filesystem.tmpfs_size_bytes = config.filesystem.tmpfs_size_bytes;
  if (config.filesystem.view == RootView::System) s.filesystem.read = config.filesystem.read;
  for (const auto& entry : f.private_etc) s.filesystem.private_masked.push_back(entry.path);
  s.workspace_protected = f.footholds.protected_paths;
  s.workspace_protect_absent = f.footholds.absent;
  for (const auto& [name, value] : env) s.env_names.push_back(name);
  s.libexec = f.libexec_dir;
  // A shipped profile's shim copy only when it is installed: `--agent claude` without a shim
  // runs whatever the command names, and check 21 has no binary to hold to account.
  const std::string binary = agent_binary(profile, f);
  s.agent.binary = profile.binary.empty() && !f.exists(binary) ? "" : binary;
  s.host_namespaces = f.namespaces;
  return s;
}

}  // namespace

std::vector<std::string> resolve_command(const AgentProfile& profile, const HostFacts& facts,
                                         const LaunchRequest& request) {
  if (!request.command.empty()) return request.command;
  std::string binary = agent_binary(profile, facts);
  if (binary.empty())
    throw Error("no command given", "usage: cordon run [OPTIONS] -- COMMAND [ARGS...]", kExitConfigError);
  if (!facts.exists(binary))
    throw Error("agent \"" + profile.name + "\" binary " + binary + " does not exist",
                "run `cordon shim install --agent " + profile.name + "`, or set agents." + profile.name +
                    ".binary in the configuration, or give the command after --");
  return {binary};
}

bool runs_the_agent(const AgentProfile& profile, const HostFacts& facts, const std::vector<std::string>& command) {
  if (command.empty()) return false;
  const std::string& program = command[0];
  const std::string binary = agent_binary(profile, facts);
  return program.substr(program.rfind('/') + 1) == profile.name || (!binary.empty() && program == binary);
}

namespace {

// The jail's resolv.conf names its forwarder. Loopback-only modes name a resolver that is not
// there (127.0.0.1:53 answers "connection refused" at once): no query leaves, and the host's
// resolver address is not shown. Host mode keeps the host's file.
std::string sandbox_resolv_conf(NetworkMode mode, const jail::JailPlan* jail) {
  if (jail) return jail->resolv_conf;
  if (mode == NetworkMode::Allowlist)
    return "# written by cordon: network.mode = \"allowlist\": no resolver; the proxy (" + proxy_url() +
           ") resolves the names it admits\nnameserver 127.0.0.1\n";
  if (mode == NetworkMode::Offline)
    return "# written by cordon: network.mode = \"offline\": no resolver\nnameserver 127.0.0.1\n";
  return {};
}

void describe_loopback_only_network(const Config& config, const AgentProfile& profile, NetworkIntent& n) {
  if (config.network.mode == NetworkMode::Offline) n.mode = NetworkMode::Offline;
  if (config.network.mode != NetworkMode::Allowlist) return;
  n.mode = NetworkMode::Allowlist;
  n.proxy = std::string(kProxyHost) + ":" + std::to_string(kProxyPort);
  n.proxy_allow = profile.network_allow;
  n.proxy_allow.insert(n.proxy_allow.end(), config.network.allow.begin(), config.network.allow.end());
  n.proxy_deny = config.network.deny;
}

// bwrap's argv, in the order bwrap applies it: namespaces, status, environment, mounts, the
// command gate, the filter, the command.
void assemble_argv(SandboxPlan& plan, const std::string& bwrap, const std::vector<std::string>& mount_args) {
  auto& a = plan.argv;
  a.push_back(bwrap);
  for (auto& arg : namespace_args()) a.push_back(arg);
  // Offline: bwrap's own network namespace, in which it brings up loopback and nothing else.
  // (Allowlist and the jail get theirs from the launcher's holder, which bwrap keeps.)
  if (plan.intent.network.mode == NetworkMode::Offline) a.emplace_back("--unshare-net");
  a.insert(a.end(), {"--json-status-fd", std::to_string(kStatusFd), "--clearenv"});
  for (const auto& [name, value] : plan.env) a.insert(a.end(), {"--setenv", name, value});
  a.insert(a.end(), mount_args.begin(), mount_args.end());
  if (plan.command_gate) a.insert(a.end(), {"--block-fd", std::to_string(kCommandGateFd)});
  a.insert(a.end(), {"--seccomp", std::to_string(kSeccompFd), "--chdir", plan.chdir, "--"});
  a.insert(a.end(), plan.command.begin(), plan.command.end());
}

// The budgets as the session file states them, in the order applied.
void record_limits(SandboxPlan& plan) {
  for (const auto& r : plan.limits.rlimits) plan.intent.limits.values.push_back(r.name + "=" + std::to_string(r.value));
  for (const auto& b : plan.limits.cgroup_budgets) {
    plan.intent.limits.values.push_back(b.limit_key + "=" + std::to_string(b.value));
    plan.intent.limits.cgroup_parents[b.controller] = b.parent_dir;
  }
  plan.intent.limits.not_enforced = plan.limits.not_enforced;
  if (plan.limits.wall_clock_seconds > 0)
    plan.intent.limits.values.push_back("wall_clock_seconds=" + std::to_string(plan.limits.wall_clock_seconds));
}

// A terminal on the launcher's side gets the private pty, unless the configuration turns it off.
void plan_terminal(const Config& config, const HostFacts& facts, SandboxPlan& plan) {
  plan.intent.terminal.operator_device = facts.terminal_device;
  plan.terminal.relay = config.terminal.private_pty && facts.terminal_fds != 0;
  plan.terminal.fds = facts.terminal_fds;
  plan.terminal.pass = config.terminal.pass;
  plan.intent.terminal.private_pty = plan.terminal.relay;
  for (size_t i = 0; i + 1 < kTerminalClassCount; ++i)
    if (config.terminal.pass.passes(static_cast<TerminalClass>(i)))
      plan.intent.terminal.pass.emplace_back(terminal_class_name(static_cast<TerminalClass>(i)));
}

}  // namespace

SandboxPlan build_plan(const Config& config, const HostFacts& facts, const LaunchRequest& request,
                       const jail::JailPlan* jail) {
  const AgentProfile& profile = config.agent(config.active_agent(request.agent, request.command));
  validate(config, profile, facts);
  std::vector<std::string> command = resolve_command(profile, facts, request);
  const bool agent_args = runs_the_agent(profile, facts, command) && !profile.args.empty();
  if (agent_args) command.insert(command.begin() + 1, profile.args.begin(), profile.args.end());

  SandboxPlan plan;
  plan.agent = profile.name;
  plan.workspace = facts.workspace;
  plan.seccomp.allow_ptrace = profile.allow_ptrace;
  plan.skip_session_init = config.filesystem.proc == ProcMode::HostReadOnly;  // the host's /proc stays the host's
  plan.limits = plan_limits(merge_limit_overrides(config.limits, request.limit_overrides, config.source_path),
                            limit_leniency(config.limits, request.limit_overrides), facts.uid, facts.cgroups,
                            config.source_path);
  plan.env = plan_environment(config, profile, facts);
  plan.chdir = path_within(facts.cwd, facts.workspace) ? facts.cwd : facts.workspace;

  // Generated files; the session file's content is filled in once the writable set is known.
  DataFiles data{kFirstDataFd, {}};
  std::vector<std::string> session_args = data.add(kGitConfigPath, render_gitconfig(config, facts));
  const size_t session_index = data.files.size();
  auto session_file_args = data.add(kSessionFilePath, "");
  session_args.insert(session_args.end(), session_file_args.begin(), session_file_args.end());
  if (const std::string resolv = sandbox_resolv_conf(config.network.mode, jail); !resolv.empty()) {
    // The sandbox's resolv.conf, bound where the host's really lives (its /run target when
    // /etc/resolv.conf links there), after and so over the host's copy.
    std::string dest = facts.resolv_conf_target.empty() ? "/etc/resolv.conf" : facts.resolv_conf_target;
    auto resolv_args = data.add(dest, resolv);
    session_args.insert(session_args.end(), resolv_args.begin(), resolv_args.end());
  }

  MountPlan mounts = plan_mounts(config, profile, facts, session_args, data.next_fd);
  plan.writable = mounts.writable;
  plan.bound_paths = mounts.bound;
  plan.intent = describe_session(config, profile, facts, plan.env, plan.writable);
  if (jail) {
    plan.intent.network.mode = NetworkMode::EgressJail;
    for (const auto& p : jail->blackholes) plan.intent.network.blackholes.push_back(p.str());
    for (const auto& p : jail->unreachable) plan.intent.network.unreachable.push_back(p.str());
    for (const auto& p : jail->allow) plan.intent.network.allow.push_back(p.str());
    plan.intent.network.gateway = jail->gateway;
    plan.intent.network.dns_forward = jail->dns_forward;
  }
  describe_loopback_only_network(config, profile, plan.intent.network);
  record_limits(plan);
  plan.intent.last_verify = facts.last_verify;
  if (agent_args) plan.intent.agent.args = profile.args;
  plan_terminal(config, facts, plan);
  data.files[session_index].content = serialize_session(plan.intent);
  plan.data_files = std::move(data.files);

  // The allowlist's proxy is started after the fork: the command waits for it as for the jail.
  plan.command_gate = (jail != nullptr || config.network.mode == NetworkMode::Allowlist) && !plan.skip_session_init;
  plan.command = command;
  assemble_argv(plan, facts.bwrap_path, mounts.args);
  return plan;
}

}  // namespace cordon
