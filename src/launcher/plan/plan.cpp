#include "launcher/plan/plan.h"

#include <algorithm>

#include "common/error.h"
#include "common/paths.h"
#include "common/text.h"
#include "launcher/fs/filesystem_checks.h"
#include "launcher/fs/gitconfig.h"
#include "launcher/inputs/paths.h"
#include "launcher/inputs/state_dirs.h"
#include "launcher/plan/session_intent.h"
#include "launcher/section/dangerous_paths.h"

namespace cordon {
namespace {

// A refusal of the workspace that the file's workspace.root chose (no --workspace given) is the
// file's: it names where the file set it, and exits 2 (125 under `run`).
template <typename Check>
void check_workspace(const Config& config, const LaunchRequest& request, const Check& check) {
  if (!request.workspace.empty() || config.workspace.root.empty()) return check();
  try {
    check();
  } catch (const Error& e) {
    throw config.source.error("workspace.root", {}, e.what(), e.fix());
  }
}

// The refusals, in the order a person fixes them: bwrap, the workspace, the home, then what
// the workspace and the filesystem would bind.
void validate(const Config& config, const LaunchRequest& request, const AgentProfile& profile, const HostFacts& f) {
  if (f.bwrap_path.empty())
    throw Error("bubblewrap (bwrap) is not installed",
                "install it: apt-get install bubblewrap (cordon looks in " + system_binary_dirs_text() + ")");
  check_workspace(config, request, [&] { refuse_unusable_workspace(f); });
  if (!f.mounts_unreadable.empty())
    throw Error(f.mounts_unreadable +
                    ": cordon decides from the mount table whether a writable path is the home "
                    "(or a system tree) under another name",
                "mount /proc in this environment (bwrap needs it too)");
  if (f.home.empty() || f.home == "/" || !f.is_dir(f.home))
    throw Error("home directory \"" + terminal_safe(f.home) + "\" is missing or is /: the home inversion needs one",
                "set HOME to an existing directory other than /");
  const std::vector<ProtectedPath> protected_list = protected_paths(f.home, f.account_home, f.libexec_dir,
                                                                    f.launcher_dir, state_dir_of(sessions_dir(f)));
  check_workspace(config, request, [&] { refuse_dangerous_workspace(f, protected_list); });
  check_workspace(config, request, [&] { refuse_unwritable_workspace(f); });
  refuse_newlines("home", f.home);
  refuse_unsafe_filesystem(config.filesystem, config.home, config.source, profile, f, protected_list);
}

// Whether /dev is bwrap's own (--dev), where a file may be made: not under the weakening that
// binds the host's, whose /dev a sentinel would be written into.
bool fresh_dev(const std::vector<MountStep>& mounts) {
  return std::any_of(mounts.begin(), mounts.end(), [](const MountStep& m) {
    return m.role == MountRole::Devices && m.op == MountOp::Dev && m.dest == "/dev";
  });
}

// Where the Landlock rules are bound: the sentinel itself in bwrap's /dev (one file to bind;
// unreadable to the session once the step applied them), else /run/cordon/landlock.
const char* landlock_rules_path(const SandboxSections& s) {
  return fresh_dev(s.filesystem.mounts) ? kLandlockSentinelPath : kLandlockRulesPath;
}

// bwrap's argv, in the order bwrap applies it: namespaces, status, environment, mounts, the
// command gate, the filter, the command.
std::vector<std::string> bwrap_argv(const SandboxSections& s, const network::NetworkSection& net,
                                    const std::vector<std::string>& mount_args, bool command_gate,
                                    const char* landlock_rules) {
  std::vector<std::string> a = {s.bwrap};
  for (auto& arg : isolation_args(s.isolation)) a.push_back(std::move(arg));
  a.insert(a.end(), net.namespace_args.begin(), net.namespace_args.end());
  a.insert(a.end(), {"--json-status-fd", std::to_string(kStatusFd)});
  if (s.isolation.clearenv) a.emplace_back("--clearenv");
  for (const auto& [name, value] : s.env) a.insert(a.end(), {"--setenv", name, value});
  a.insert(a.end(), mount_args.begin(), mount_args.end());
  if (command_gate) a.insert(a.end(), {"--block-fd", std::to_string(kCommandGateFd)});
  if (s.isolation.seccomp) a.insert(a.end(), {"--seccomp", std::to_string(kSeccompFd)});
  a.insert(a.end(), {"--chdir", s.workspace.chdir, "--"});
  // The Landlock step runs after bwrap's mounts and seccomp filter, restricts itself and execs
  // the command: the ruleset is inherited by everything the session starts.
  if (s.landlock.apply) a.insert(a.end(), {s.landlock_helper, landlock_rules, "--"});
  a.insert(a.end(), s.command.begin(), s.command.end());
  return a;
}

// The generated files, in descriptor order: the git config, the session file (its content is
// the intent, stated last), the network mode's resolv.conf where it has one, bound where the
// host's really lives (its /run target when /etc/resolv.conf links there), over the host's copy.
std::vector<DataFile> generated_files(const SandboxSections& s, const network::NetworkSection& net) {
  std::vector<DataFile> files = {{kGitConfigPath, s.gitconfig}, {kSessionFilePath, ""}};
  if (!net.resolv_conf.empty()) files.push_back({s.resolv_conf_dest, net.resolv_conf});
  // The sentinel check 33 must fail to read wherever the intent says a ruleset applies: under
  // the no-landlock weakening too (the rules bound, no step to apply them), so the check sees
  // the layer missing. Where /dev is the host's, the rules only, elsewhere.
  const bool sentinel = s.intent.landlock.applied && fresh_dev(s.filesystem.mounts);
  if (s.landlock.apply || sentinel)
    files.push_back({landlock_rules_path(s), landlock::render_rules(landlock::rules_of(s.landlock))});
  return files;
}

// The Landlock section from the un-weakened mounts; a refusal (required, no Landlock) is the
// configuration's, named where it was set.
landlock::LandlockSection plan_landlock_layer(const Config& config, const HostFacts& facts,
                                              const std::vector<MountStep>& mounts) {
  try {
    // bwrap binds its stdout's terminal at /dev/console: the launcher's fd 1, or the pty for it.
    const bool terminal_console = (facts.terminal_fds & 2U) != 0;
    return landlock::plan_landlock(config.sandbox.landlock, facts.landlock.abi, mounts, facts.landlock.problem,
                                   terminal_console);
  } catch (const Error& e) {
    throw config.source.error("sandbox.landlock", {}, e.what(), e.fix());
  }
}

// The parts of the intent each mechanism states for itself.
void state_intent(SandboxSections& s, const Config& config, const AgentProfile& profile, const HostFacts& facts,
                  const NetworkIntent& network, bool agent_args) {
  s.intent = describe_session(config, profile, facts, s.workspace, s.env, writable_paths(s.filesystem.mounts));
  s.intent.network = network;
  s.intent.limits = describe_limits(s.limits);
  s.intent.last_verify = facts.last_verify;
  if (agent_args) s.intent.agent.args = profile.args;
  s.intent.terminal = s.terminal.intent;
  s.intent.landlock = landlock::describe_landlock(s.landlock);
}

}  // namespace

SandboxSections plan_sections(const Config& config, const HostFacts& facts, const LaunchRequest& request) {
  const AgentProfile& profile = config.agent(config.active_agent(request.agent, request.command));
  SandboxSections s;
  s.bwrap = facts.bwrap_path;
  s.agent = profile.name;
  // The network first: a jail that cannot be planned on this host is reported before the rest.
  s.network = network::plan_network(config.network, config.source, profile.network_allow, facts.network);
  if (auto* allowlist = std::get_if<network::AllowlistMode>(&s.network))
    allowlist->proxy_landlock = landlock_mode_name(config.sandbox.landlock);
  validate(config, request, profile, facts);
  s.command = resolve_command(profile, facts, request);
  const bool agent_args = runs_the_agent(profile, facts, s.command) && !profile.args.empty();
  if (agent_args) s.command.insert(s.command.begin() + 1, profile.args.begin(), profile.args.end());
  s.isolation = plan_isolation(config.filesystem, profile);
  s.limits = plan_limits(merge_limit_overrides(config.limits, request.limit_overrides, config.source.file),
                         limit_leniency(config.limits, request.limit_overrides), facts.uid, facts.user, facts.cgroups,
                         config.source.file);
  const network::NetworkSection network = network::network_section(s.network);
  s.env = plan_environment(config.environment, profile, facts, network.env);
  s.gitconfig = render_gitconfig(config.git, facts);
  s.resolv_conf_dest = facts.resolv_conf_target.empty() ? "/etc/resolv.conf" : facts.resolv_conf_target;
  s.terminal = plan_terminal(
      config.terminal, facts.terminal_device, facts.terminal_fds,
      config.records.transcript ? static_cast<uint64_t>(config.records.transcript_max_bytes) : 0);
  s.workspace = plan_workspace(config.workspace, facts);
  // The overlay is mounted in the session's own mount namespace, which only its init has: never
  // in the launcher's (the host's) namespace.
  if (s.workspace.review && !s.isolation.session_init)
    throw Error(
        "[workspace] mode = \"review\" needs the session's own /proc and mount namespace, which "
        "[filesystem] proc = \"host-ro\" turns off",
        "set [filesystem] proc = \"fresh\" in " + config.source.file + ", or run in direct mode", kExitConfigError);
  s.filesystem = plan_filesystem(config.filesystem, config.home,
                                 siblings_mask(config.workspace, config.filesystem, facts), profile, facts,
                                 workspace_mounts(s.workspace));
  s.landlock = plan_landlock_layer(config, facts, s.filesystem.mounts);
  s.landlock_helper = facts.libexec_dir + "/cordon-landlock";
  state_intent(s, config, profile, facts, network.intent, agent_args);
  return s;
}

SandboxPlan assemble_plan(SandboxSections s) {
  const network::NetworkSection net = network::network_section(s.network);
  SandboxPlan plan;
  plan.permission_roots = permission_roots(s.filesystem.mounts);
  std::vector<DataFile> files = generated_files(s, net);  // reads the mounts: before they move
  const char* landlock_rules = landlock_rules_path(s);    // the same
  RenderedMounts mounts = render_mounts(std::move(s.filesystem.mounts), std::move(files), kFirstDataFd);
  mounts.files[1].content = serialize_session(s.intent);
  // A mode whose launch stage finishes after the fork keeps the command at the gate; only
  // with the session's init, which keeps it shut if the launcher dies (process/session_init.h).
  plan.command_gate = net.command_gate && s.isolation.session_init;
  plan.argv = bwrap_argv(s, net, mounts.args, plan.command_gate, landlock_rules);
  plan.data_files = std::move(mounts.files);
  plan.bound_paths = std::move(mounts.bound);
  plan.writable = std::move(mounts.writable);
  plan.command = std::move(s.command);
  plan.isolation = s.isolation;
  plan.env = std::move(s.env);
  plan.workspace = s.workspace.path;
  plan.chdir = s.workspace.chdir;
  plan.agent = s.agent;
  plan.intent = std::move(s.intent);
  plan.limits = std::move(s.limits);
  plan.terminal = s.terminal.plan;
  plan.network = std::move(s.network);
  plan.workspace_plan = std::move(s.workspace);
  plan.landlock = std::move(s.landlock);
  return plan;
}

SandboxPlan build_plan(const Config& config, const HostFacts& facts, const LaunchRequest& request) {
  return assemble_plan(plan_sections(config, facts, request));
}

}  // namespace cordon
