#include "launcher/plan/weaken.h"

#ifdef CORDON_TEST_HOOKS

#include <algorithm>
#include <variant>

#include "common/error.h"
#include "common/intent.h"
#include "common/paths.h"

namespace cordon {
namespace {

using Mounts = std::vector<MountStep>;

// Removes every mount whose role is `role` and that `also` accepts.
template <typename Match>
void remove_mounts(Mounts& mounts, MountRole role, Match also) {
  std::erase_if(mounts, [&](const MountStep& m) { return m.role == role && also(m); });
}
void remove_mounts(Mounts& mounts, MountRole role) {
  remove_mounts(mounts, role, [](const MountStep&) { return true; });
}

// The host's `dir`, read-only, where the sandbox had a fresh tmpfs of that role: what the
// whole-root view showed there.
void host_dir_for_tmpfs(Mounts& mounts, MountRole role, const std::string& dir) {
  for (MountStep& m : mounts)
    if (m.role == role && m.op == MountOp::Tmpfs && m.dest == dir) m = {MountOp::RoBind, dir, dir, role};
}

// A weakening's own bind, after every other mount: before the system view's root turns
// read-only (a new mount point in it could not be made after), else at the end.
void add_bind(Mounts& mounts, MountOp op, const std::string& path) {
  auto root_ro = std::find_if(mounts.begin(), mounts.end(), [](const MountStep& m) {
    return m.role == MountRole::ReadOnlyAfter && m.op == MountOp::RemountRo && m.dest == "/";
  });
  mounts.insert(root_ro, {op, path, path, MountRole::TestAddition});
}

void remove_env(EnvList& env, const std::string& name) {
  std::erase_if(env, [&](const auto& kv) { return kv.first == name; });
}

void no_home_tmpfs(SandboxSections& s) {
  const std::string& home = s.intent.home.path;
  host_dir_for_tmpfs(s.filesystem.mounts, MountRole::HomeTmpfs, home);
  // Masks inside a read-only host home cannot be created; they go with the tmpfs.
  remove_mounts(s.filesystem.mounts, MountRole::Mask,
                [&](const MountStep& m) { return m.dest != home && path_within(m.dest, home); });
}

// The whole host root under the system view's binds, as with view = "host", while the
// session file still says "system".
void host_view(SandboxSections& s) {
  Mounts& mounts = s.filesystem.mounts;
  remove_mounts(mounts, MountRole::ReadOnlyAfter, [](const MountStep& m) { return m.dest == "/"; });
  auto dev = std::find_if(mounts.begin(), mounts.end(),
                          [](const MountStep& m) { return m.role == MountRole::Devices; });
  mounts.insert(dev, {MountOp::RoBind, "/", "/", MountRole::SystemRoot});
}

// Without the session's init nothing keeps the command gate shut if the launcher dies: the
// jail then runs in order, as with proc = "host-ro" (plan.cpp).
void skip_session_init(SandboxSections& s) { s.isolation.session_init = false; }

struct Weakening {
  const char* name;
  void (*apply)(SandboxSections&);
};

// Every defence a test can remove, by name. "rw-bind:PATH" and "bind:PATH" take a path and are
// handled by weaken_sections itself.
const Weakening kWeakenings[] = {
    // The Landlock step is not run and its rules file not bound: the manifest records
    // applied = false, from the plan as launched.
    {"no-landlock", [](SandboxSections& s) { s.landlock.apply = false; }},
    {"no-sentinel", [](SandboxSections& s) { remove_env(s.env, "IS_SANDBOX"); }},
    // bwrap hands the command the launcher's own environment.
    {"no-clearenv", [](SandboxSections& s) { s.isolation.clearenv = false; }},
    {"no-cap-drop", [](SandboxSections& s) { s.isolation.cap_drop = false; }},
    // Both pid namespaces go: bwrap's and the session's (process/session_init.h).
    {"no-unshare-pid",
     [](SandboxSections& s) {
       s.isolation.unshare_pid = false;
       skip_session_init(s);
     }},
    // Only the session's: bwrap's --die-with-parent alone ties the sandbox to the launcher.
    {"no-session-init", skip_session_init},
    {"no-unshare-ipc", [](SandboxSections& s) { s.isolation.unshare_ipc = false; }},
    // network.mode = "offline" in the launcher's own network namespace, with the host's resolver.
    {"offline-host-net",
     [](SandboxSections& s) {
       if (auto* offline = std::get_if<network::OfflineMode>(&s.network)) offline->own_namespace = false;
     }},
    // network.mode = "allowlist" with the proxy running but the sandbox in the launcher's
    // network namespace (the holder makes no namespace of its own), with the host's resolver.
    {"allowlist-host-net",
     [](SandboxSections& s) {
       if (auto* allowlist = std::get_if<network::AllowlistMode>(&s.network)) allowlist->own_namespace = false;
     }},
    // The proxy admits every destination and refuses no address (and gives up connecting
    // after 1 s, so an admitted destination that does not answer shows at once).
    {"proxy-allow-all",
     [](SandboxSections& s) {
       if (auto* allowlist = std::get_if<network::AllowlistMode>(&s.network))
         allowlist->proxy_test_args.insert(allowlist->proxy_test_args.end(),
                                           {"--test-allow-all", "--connect-timeout-seconds", "1"});
     }},
    // The proxy without its own confinement (no Landlock domain, no seccomp filter): the control
    // of the tests that see it confined.
    {"proxy-unconfined",
     [](SandboxSections& s) {
       if (auto* allowlist = std::get_if<network::AllowlistMode>(&s.network))
         allowlist->proxy_test_args.emplace_back("--test-no-confine");
     }},
    // The jail without the /32 blackholes of the host's own addresses (the session file still
    // states them): what the jail was before it read every address of the host.
    {"jail-host-addresses-open",
     [](SandboxSections& s) {
       auto* jailed = std::get_if<network::JailMode>(&s.network);
       if (!jailed) return;
       std::erase_if(jailed->jail.blackholes, [&](const Ipv4Prefix& p) {
         const auto& open = jailed->jail.host_addresses;
         return std::find(open.begin(), open.end(), p) != open.end();
       });
     }},
    {"no-unshare-uts", [](SandboxSections& s) { s.isolation.unshare_uts = false; }},
    {"host-dev",
     [](SandboxSections& s) {
       for (MountStep& m : s.filesystem.mounts)
         if (m.role == MountRole::Devices) m = {MountOp::DevBind, "/dev", "/dev", MountRole::Devices};
     }},
    {"no-tmp-tmpfs",
     [](SandboxSections& s) { host_dir_for_tmpfs(s.filesystem.mounts, MountRole::RuntimeTmpfs, "/tmp"); }},
    // /run/cordon must then already exist on the host (the test creates it).
    {"no-run-tmpfs",
     [](SandboxSections& s) {
       host_dir_for_tmpfs(s.filesystem.mounts, MountRole::RuntimeTmpfs, "/run");
       remove_mounts(s.filesystem.mounts, MountRole::RuntimeTmpfs,
                     [](const MountStep& m) { return m.dest == "/run/user" || m.dest == "/run/secrets"; });
     }},
    {"no-home-tmpfs", no_home_tmpfs},
    {"no-account-home-tmpfs",
     [](SandboxSections& s) {
       const std::string& account = s.intent.home.account_path;
       host_dir_for_tmpfs(s.filesystem.mounts, MountRole::AccountHome, account);
       remove_mounts(s.filesystem.mounts, MountRole::AccountHome,
                     [](const MountStep& m) { return m.op == MountOp::RemountRo; });
     }},
    {"host-view", host_view},
    // Every writable tmpfs without its size cap: host RAM is the only bound.
    {"no-tmpfs-size",
     [](SandboxSections& s) {
       for (MountStep& m : s.filesystem.mounts) m.size = 0;
     }},
    // A root launch's masks over what only root may read in /etc, gone (with the credential
    // masks over the same paths: what the host's root-only files hold is then readable).
    {"no-private-masks",
     [](SandboxSections& s) {
       const auto& private_paths = s.intent.filesystem.private_masked;
       remove_mounts(s.filesystem.mounts, MountRole::PrivateMask);
       remove_mounts(s.filesystem.mounts, MountRole::Mask, [&](const MountStep& m) {
         return std::find(private_paths.begin(), private_paths.end(), m.dest) != private_paths.end();
       });
     }},
    // Every mask of cordon's empty file (a private directory's tmpfs stays).
    {"no-masks",
     [](SandboxSections& s) {
       remove_mounts(s.filesystem.mounts, MountRole::Mask);
       remove_mounts(s.filesystem.mounts, MountRole::PrivateMask,
                     [](const MountStep& m) { return m.op == MountOp::RoBind; });
     }},
    {"no-gitconfig",
     [](SandboxSections& s) {
       remove_env(s.env, "GIT_CONFIG_GLOBAL");
       remove_env(s.env, "GIT_CONFIG_SYSTEM");
     }},
    {"no-seccomp", [](SandboxSections& s) { s.isolation.seccomp = false; }},
    // Two independent layers refuse nested user namespaces; both go.
    {"allow-userns",
     [](SandboxSections& s) {
       s.isolation.disable_userns = false;
       s.isolation.seccomp = false;
     }},
    {"no-libexec-bind", [](SandboxSections& s) { remove_mounts(s.filesystem.mounts, MountRole::Libexec); }},
    {"no-rlimits", [](SandboxSections& s) { s.limits.rlimits.clear(); }},  // the session file still states them
    {"no-cgroup", [](SandboxSections& s) { s.limits.cgroup_budgets.clear(); }},
    // The pty is made and relayed, but the sandbox's streams stay the operator's terminal.
    {"shared-terminal", [](SandboxSections& s) { s.terminal.plan.attach = false; }},
    // The workspace's git config, hooks and protect entries stay writable (workspace/footholds.h).
    // Review mode's overlay left out: the host tree bound read-write while the session file
    // says "review" (check 34 FAILs, probe 95 ESCAPEs).
    {"review-direct", [](SandboxSections& s) { s.workspace.review = false; }},
    {"writable-footholds", [](SandboxSections& s) { remove_mounts(s.filesystem.mounts, MountRole::Foothold); }},
    // The agent's control entries stay as writable as the state directory they lie in.
    {"writable-agent-control", [](SandboxSections& s) { remove_mounts(s.filesystem.mounts, MountRole::Control); }},
};

}  // namespace

std::vector<std::string> weakening_names() {
  std::vector<std::string> names;
  for (const Weakening& w : kWeakenings) names.emplace_back(w.name);
  names.insert(names.end(), {"rw-bind:PATH", "bind:PATH"});
  return names;
}

void weaken_sections(SandboxSections& sections, const std::string& name) {
  if (name.rfind("rw-bind:", 0) == 0) return add_bind(sections.filesystem.mounts, MountOp::Bind, name.substr(8));
  if (name.rfind("bind:", 0) == 0) return add_bind(sections.filesystem.mounts, MountOp::RoBind, name.substr(5));
  for (const Weakening& w : kWeakenings)
    if (name == w.name) return w.apply(sections);
  std::string known;
  for (const auto& n : weakening_names()) known += " " + n;
  throw Error("unknown weakening \"" + name + "\"", "one of:" + known, kExitConfigError);
}

}  // namespace cordon

#else

#include "common/error.h"

namespace cordon {
std::vector<std::string> weakening_names() { return {}; }
void weaken_sections(SandboxSections&, const std::string&) {
  throw Error("this build has no test hooks", "rebuild with -DCORDON_TEST_HOOKS=ON", kExitConfigError);
}
}  // namespace cordon

#endif
