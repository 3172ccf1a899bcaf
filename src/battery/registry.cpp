// The numbered checks. Numbers are stable: scripts and docs refer to them.
#include <exception>
#include <iterator>

#include "battery/check.h"

namespace cordon::battery {

namespace {

// The table, in number order: data, not code.
const CheckSpec kChecks[] = {
    {"01", "sentinel IS_SANDBOX=1", "launcher_provenance", "bwrap --setenv IS_SANDBOX 1", check_sentinel},
    {"02", "NoNewPrivs", "privilege_floor", "prctl(PR_SET_NO_NEW_PRIVS) by bwrap", check_no_new_privs},
    {"03", "strict home", "credential_isolation", "bwrap --tmpfs $HOME + allow-listed binds", check_strict_home},
    {"04", "environment scrubbed", "credential_isolation", "bwrap --clearenv + --setenv allow-list", check_env_scrub},
    {"05", "no display or session bus", "ipc_isolation", "environment allow-list", check_no_display},
    {"06", "no effective capabilities", "privilege_floor", "bwrap --cap-drop ALL", check_cap_eff},
    {"07", "own PID namespace", "process_isolation", "bwrap --unshare-pid + --proc /proc", check_pid_namespace},
    {"08", "own IPC namespace", "ipc_isolation", "bwrap --unshare-ipc", check_ipc_namespace},
    {"09", "own UTS namespace", "process_isolation", "bwrap --unshare-uts", check_uts_namespace},
    {"10", "fresh /dev", "filesystem_confinement", "bwrap --dev /dev", check_fresh_dev},
    {"11", "private /tmp", "ipc_isolation", "bwrap --tmpfs /tmp", check_private_tmp},
    {"12", "/run/user empty", "ipc_isolation", "bwrap --tmpfs /run, --tmpfs /run/user", check_run_user},
    {"13", "/run/secrets empty", "credential_isolation", "bwrap --tmpfs /run, --tmpfs /run/secrets", check_run_secrets},
    {"14", "$HOME/.netrc empty", "credential_isolation", "empty read-only file bound over it", check_netrc},
    {"15", "$HOME/.Xauthority empty", "credential_isolation", "empty read-only file bound over it", check_xauthority},
    {"16", "curated git config", "configuration_integrity",
     "GIT_CONFIG_GLOBAL=/run/cordon/gitconfig (read-only), GIT_CONFIG_SYSTEM=/dev/null", check_gitconfig},
    {"17", "writable set", "filesystem_confinement", "read-only system view + --bind-fd workspace", check_writable_set},
    {"18", "configuration read-only", "configuration_integrity", "fixed config path + read-only binds",
     check_config_readonly},
    {"19", "egress jail routes", "egress_confinement", "blackhole/unreachable routes in a private netns",
     check_jail_routes},
    {"20", "egress jail behaviour", "egress_confinement", "RTM_GETROUTE lookups", check_jail_behaviour},
    {"21", "agent binary integrity", "agent_integrity", "read-only agent binary, no copy in writable home entries",
     check_agent_binary},
    {"22", "seccomp filter and TIOCSTI", "terminal_isolation", "seccomp filter (ioctl TIOCSTI -> EPERM)",
     check_seccomp_tiocsti},
    {"23", "user namespaces refused", "privilege_floor", "bwrap --disable-userns + seccomp", check_userns_refused},
    {"24", "host abstract sockets unreachable", "ipc_isolation", "private network namespace", check_abstract_sockets},
    {"25", "/proc/1 is the sandbox init", "process_isolation", "bwrap --unshare-pid + --proc /proc", check_proc1_init},
    {"26", "system credential files masked", "credential_isolation",
     "empty read-only files over /etc/shadow, /etc/gshadow, their backups, /etc/sudoers, SSH host keys",
     check_system_masks},
    {"27", "resource budgets in force", "resource_budgets",
     "setrlimit before bwrap + the session cgroup's pids.max / memory.max", check_resource_budgets},
    {"28", "private terminal", "terminal_isolation",
     "a new pty as the session's controlling terminal, relayed through cordon's output filter", check_private_terminal},
    {"29", "workspace footholds read-only", "filesystem_confinement",
     "read-only binds over the workspace's .git config and hooks and [workspace] protect entries", check_footholds_ro},
    {"30", "unrelated host data absent", "filesystem_confinement",
     "an allow-listed root: /usr, /etc (masked), /sys, [filesystem] read; tmpfs for the rest", check_system_view},
    {"31", "egress limited to the policy", "egress_confinement",
     "a loopback-only network namespace; allowlist: cordon's proxy outside (network.mode)", check_egress_policy},
    {"32", "agent control read-only", "agent_integrity",
     "the profile's control entries bound read-only over its state (agents.NAME.control); no replaceable "
     "mapped executable",
     check_agent_control},
    {"33", "second filesystem layer", "filesystem_confinement",
     "Landlock ruleset from the plan (libexec/cordon-landlock before the command)", check_landlock},
    {"34", "review workspace is an overlay", "filesystem_confinement",
     "[workspace] mode = \"review\": overlayfs over the host tree, the upper layer in cordon's state directory",
     check_review_overlay},
};

}  // namespace

const std::vector<CheckSpec>& all_checks() {
  static const std::vector<CheckSpec> checks(std::begin(kChecks), std::end(kChecks));
  return checks;
}

CheckResult run_check(const CheckSpec& spec, const Context& context) {
  CheckResult r;
  r.id = spec.id;
  r.name = spec.name;
  r.property = spec.property;
  Outcome o;
  try {
    o = spec.run(context);
  } catch (const std::exception& e) {
    o = fail(std::string("check could not run: ") + e.what());
  }
  r.status = o.status;
  r.detail = o.detail;
  r.mechanism = o.mechanism.empty() ? spec.mechanism : o.mechanism;
  return r;
}

}  // namespace cordon::battery
