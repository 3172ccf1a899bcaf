#include "launcher/plan/plan.h"

#include "common/build_config.h"
#include "common/credential_files.h"
#include "common/error.h"
#include "common/paths.h"
#include "launcher/fs/gitconfig.h"
#include "launcher/fs/mounts.h"
#include "launcher/inputs/state_dirs.h"
#include "launcher/section/dangerous_paths.h"
#include "launcher/workspace/workspace_plan.h"

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
  refuse_unusable_workspace(f);
  if (f.home.empty() || f.home == "/" || !f.is_dir(f.home))
    throw Error("home directory \"" + f.home + "\" is missing or is /: the home inversion needs one",
                "set HOME to an existing directory other than /");
  const std::string sessions = sessions_dir(f);
  const std::string state_dir = state_dir_of(sessions);
  const std::vector<ProtectedPath> protected_list = protected_paths(f.home, f.account_home, f.libexec_dir,
                                                                    f.launcher_dir, state_dir);
  refuse_dangerous_workspace(f, protected_list);
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
                               const WorkspaceSection& workspace, const EnvList& env,
                               const std::vector<std::string>& writable) {
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
  s.workspace_protected = workspace.footholds.protected_paths;
  s.workspace_protect_absent = workspace.footholds.absent;
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

// bwrap's argv, in the order bwrap applies it: namespaces, status, environment, mounts, the
// command gate, the filter, the command.
void assemble_argv(SandboxPlan& plan, const std::string& bwrap, const std::vector<std::string>& network_namespace,
                   const std::vector<std::string>& mount_args) {
  auto& a = plan.argv;
  a.push_back(bwrap);
  for (auto& arg : namespace_args()) a.push_back(arg);
  a.insert(a.end(), network_namespace.begin(), network_namespace.end());
  a.insert(a.end(), {"--json-status-fd", std::to_string(kStatusFd), "--clearenv"});
  for (const auto& [name, value] : plan.env) a.insert(a.end(), {"--setenv", name, value});
  a.insert(a.end(), mount_args.begin(), mount_args.end());
  if (plan.command_gate) a.insert(a.end(), {"--block-fd", std::to_string(kCommandGateFd)});
  a.insert(a.end(), {"--seccomp", std::to_string(kSeccompFd), "--chdir", plan.chdir, "--"});
  a.insert(a.end(), plan.command.begin(), plan.command.end());
}

}  // namespace

SandboxSections plan_sections(const Config& config, const HostFacts& facts, const LaunchRequest& request) {
  const AgentProfile& profile = config.agent(config.active_agent(request.agent, request.command));
  SandboxSections s;
  s.profile = &profile;
  // The network first: a jail that cannot be planned on this host is reported before the rest.
  s.network = network::plan_network(config.network, config.source_path, profile.network_allow, facts.network);
  validate(config, profile, facts);
  s.command = resolve_command(profile, facts, request);
  s.agent_args = runs_the_agent(profile, facts, s.command) && !profile.args.empty();
  if (s.agent_args) s.command.insert(s.command.begin() + 1, profile.args.begin(), profile.args.end());
  s.skip_session_init = config.filesystem.proc == ProcMode::HostReadOnly;
  s.limits = plan_limits(merge_limit_overrides(config.limits, request.limit_overrides, config.source_path),
                         limit_leniency(config.limits, request.limit_overrides), facts.uid, facts.cgroups,
                         config.source_path);
  s.limits_intent = describe_limits(s.limits);
  s.env = plan_environment(config.environment, profile, facts, network::network_section(s.network).env);
  s.gitconfig = render_gitconfig(config, facts);
  s.terminal = plan_terminal(config.terminal, facts.terminal_device, facts.terminal_fds);
  s.workspace = plan_workspace(config.workspace, facts);
  return s;
}

SandboxPlan assemble_plan(const Config& config, const HostFacts& facts, SandboxSections s) {
  const AgentProfile& profile = *s.profile;
  const network::NetworkSection net = network::network_section(s.network);
  SandboxPlan plan;
  plan.agent = profile.name;
  plan.workspace = facts.workspace;
  plan.seccomp.allow_ptrace = profile.allow_ptrace;
  plan.skip_session_init = s.skip_session_init;
  plan.limits = std::move(s.limits);
  plan.env = std::move(s.env);
  plan.chdir = s.workspace.chdir;
  plan.terminal = s.terminal.plan;
  plan.network = std::move(s.network);

  // Generated files; the session file's content is filled in once the writable set is known.
  DataFiles data{kFirstDataFd, {}};
  std::vector<std::string> session_args = data.add(kGitConfigPath, s.gitconfig);
  const size_t session_index = data.files.size();
  auto session_file_args = data.add(kSessionFilePath, "");
  session_args.insert(session_args.end(), session_file_args.begin(), session_file_args.end());
  if (!net.resolv_conf.empty()) {
    // The sandbox's resolv.conf, bound where the host's really lives (its /run target when
    // /etc/resolv.conf links there), after and so over the host's copy.
    std::string dest = facts.resolv_conf_target.empty() ? "/etc/resolv.conf" : facts.resolv_conf_target;
    auto resolv_args = data.add(dest, net.resolv_conf);
    session_args.insert(session_args.end(), resolv_args.begin(), resolv_args.end());
  }

  MountPlan mounts = plan_mounts(config, profile, facts, workspace_mounts(s.workspace), session_args, data.next_fd);
  plan.writable = mounts.writable;
  plan.bound_paths = mounts.bound;
  plan.intent = describe_session(config, profile, facts, s.workspace, plan.env, plan.writable);
  plan.intent.network = net.intent;
  plan.intent.limits = s.limits_intent;
  plan.intent.last_verify = facts.last_verify;
  if (s.agent_args) plan.intent.agent.args = profile.args;
  plan.intent.terminal = s.terminal.intent;
  data.files[session_index].content = serialize_session(plan.intent);
  plan.data_files = std::move(data.files);

  // A mode whose launch stage finishes after the fork keeps the command at the gate; only
  // with the session's init, which keeps it shut if the launcher dies (process/session_init.h).
  plan.command_gate = net.command_gate && !plan.skip_session_init;
  plan.command = std::move(s.command);
  plan.workspace_plan = std::move(s.workspace);
  assemble_argv(plan, facts.bwrap_path, net.namespace_args, mounts.args);
  return plan;
}

SandboxPlan build_plan(const Config& config, const HostFacts& facts, const LaunchRequest& request) {
  return assemble_plan(config, facts, plan_sections(config, facts, request));
}

}  // namespace cordon
