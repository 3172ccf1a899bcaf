#include "launcher/plan/weaken.h"

#ifdef CORDON_TEST_HOOKS

#include <algorithm>
#include <variant>

#include "common/error.h"
#include "common/intent.h"
#include "common/paths.h"

namespace cordon {
namespace {

// Removes every occurrence of the exact sequence `seq` before the command separator.
void remove_seq(std::vector<std::string>& argv, const std::vector<std::string>& seq) {
  auto end = std::find(argv.begin(), argv.end(), "--");
  for (auto it = argv.begin(); it != end;) {
    if (static_cast<size_t>(end - it) >= seq.size() && std::equal(seq.begin(), seq.end(), it)) {
      it = argv.erase(it, it + static_cast<long>(seq.size()));
      end = std::find(argv.begin(), argv.end(), "--");
    } else {
      ++it;
    }
  }
}

// Inserts `items` after every mount: before the system view's root turns read-only (a new
// mount point in it could not be made after), else just before "--seccomp".
void add_before_seccomp(std::vector<std::string>& argv, const std::vector<std::string>& items) {
  const std::vector<std::string> root_ro = {"--remount-ro", "/"};
  auto at = std::search(argv.begin(), argv.end(), root_ro.begin(), root_ro.end());
  if (at != argv.end()) {
    argv.insert(at, items.begin(), items.end());
    return;
  }
  at = std::find(argv.begin(), argv.end(), "--seccomp");
  if (at == argv.end()) at = std::find(argv.begin(), argv.end(), "--chdir");
  argv.insert(at, items.begin(), items.end());
}

// Removes every mask ("--ro-bind EMPTY DEST") whose DEST is accepted by `match`.
template <typename Match>
void remove_masks(SandboxPlan& plan, Match match) {
  const std::string empty = plan.intent.libexec + "/empty";
  auto& a = plan.argv;
  for (size_t i = 0; i + 2 < a.size();) {
    if (a[i] == "--ro-bind" && a[i + 1] == empty && match(a[i + 2]))
      a.erase(a.begin() + static_cast<long>(i), a.begin() + static_cast<long>(i) + 3);
    else ++i;
  }
}

// Removes the tmpfs at `dir` (with its --size, if any) before the command separator; returns
// where it stood, or argv.end() when there is none.
std::vector<std::string>::iterator erase_tmpfs(std::vector<std::string>& argv, const std::string& dir) {
  auto end = std::find(argv.begin(), argv.end(), "--");
  for (auto it = argv.begin(); it + 1 < end; ++it) {
    if (*it != "--tmpfs" || *(it + 1) != dir) continue;
    auto from = it - argv.begin() >= 2 && *(it - 2) == "--size" ? it - 2 : it;
    return argv.erase(from, it + 2);
  }
  return argv.end();
}

void remove_tmpfs(std::vector<std::string>& argv, const std::string& dir) { erase_tmpfs(argv, dir); }

// The host's `dir`, read-only, where the sandbox had a fresh tmpfs: what the whole-root view
// showed there, in either view.
void host_dir_for_tmpfs(std::vector<std::string>& argv, const std::string& dir) {
  auto at = erase_tmpfs(argv, dir);
  if (at != argv.end()) argv.insert(at, {"--ro-bind", dir, dir});
}

// Every writable tmpfs without its size cap: host RAM is the only bound.
void no_tmpfs_size(SandboxPlan& plan) {
  auto& a = plan.argv;
  for (size_t i = 0; i + 1 < a.size() && a[i] != "--";) {
    if (a[i] == "--size") a.erase(a.begin() + static_cast<long>(i), a.begin() + static_cast<long>(i) + 2);
    else ++i;
  }
}

void no_home_tmpfs(SandboxPlan& plan) {
  const std::string& home = plan.intent.home.path;
  host_dir_for_tmpfs(plan.argv, home);
  // Masks inside a read-only host home cannot be created; they go with the tmpfs.
  remove_masks(plan, [&](const std::string& dest) { return dest != home && path_within(dest, home); });
}

void host_dev(SandboxPlan& plan) {
  auto& a = plan.argv;
  const std::vector<std::string> fresh_dev = {"--dev", "/dev"};
  auto it = std::search(a.begin(), a.end(), fresh_dev.begin(), fresh_dev.end());
  if (it != a.end()) {
    *it = "--dev-bind";
    a.insert(it + 1, "/dev");
  }
}

// The whole host root under the system view's binds, as with view = "host", while the
// session file still says "system".
void host_view(SandboxPlan& plan) {
  auto& a = plan.argv;
  remove_seq(a, {"--remount-ro", "/"});
  const std::vector<std::string> fresh_dev = {"--dev", "/dev"};
  auto it = std::search(a.begin(), a.end(), fresh_dev.begin(), fresh_dev.end());
  a.insert(it, {"--ro-bind", "/", "/"});
}

// A root launch's masks over what only root may read in /etc, gone.
void no_private_masks(SandboxPlan& plan) {
  for (const auto& path : plan.intent.filesystem.private_masked) {
    remove_seq(plan.argv, {"--tmpfs", path, "--remount-ro", path});
    remove_masks(plan, [&](const std::string& dest) { return dest == path; });
  }
}

void no_seccomp(SandboxPlan& plan) {
  remove_seq(plan.argv, {"--seccomp", std::to_string(kSeccompFd)});
  plan.skip_seccomp = true;
}

struct Weakening {
  const char* name;
  void (*apply)(SandboxPlan&);
};

// Without the session's init nothing keeps the command gate shut if the launcher dies: the
// jail then runs in order, as with proc = "host-ro" (plan.cpp).
void skip_session_init(SandboxPlan& plan) {
  plan.skip_session_init = true;
  plan.command_gate = false;
  remove_seq(plan.argv, {"--block-fd", std::to_string(kCommandGateFd)});
}

void writable_agent_control(SandboxPlan& plan) {
  auto& bound = plan.bound_paths;
  for (auto it = bound.begin(); it != bound.end();) {
    if (!it->read_only) {
      ++it;
      continue;
    }
    remove_seq(plan.argv, {"--ro-bind-fd", std::to_string(it->fd), it->dest});
    it = bound.erase(it);
  }
}

// Weakenings that act on a mechanism's section before assembly.
struct SectionWeakening {
  const char* name;
  void (*apply)(SandboxSections&);
};

const SectionWeakening kSectionWeakenings[] = {
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
    {"no-rlimits", [](SandboxSections& s) { s.limits.rlimits.clear(); }},  // the session file still states them
    {"no-cgroup", [](SandboxSections& s) { s.limits.cgroup_budgets.clear(); }},
    // The pty is made and relayed, but the sandbox's streams stay the operator's terminal.
    {"shared-terminal", [](SandboxSections& s) { s.terminal.plan.attach = false; }},
};

bool is_section_weakening(const std::string& name) {
  for (const SectionWeakening& w : kSectionWeakenings)
    if (name == w.name) return true;
  return false;
}

// Every defence a test can remove, by name. "rw-bind:PATH" and "bind:PATH" take a path and are
// handled by apply_weakening itself.
const Weakening kWeakenings[] = {
    {"no-sentinel",
     [](SandboxPlan& p) {
       remove_seq(p.argv, {"--setenv", "IS_SANDBOX", "1"});
     }},
    {"no-clearenv",
     [](SandboxPlan& p) {
       remove_seq(p.argv, {"--clearenv"});
       p.inherit_environment = true;
     }},
    {"no-cap-drop",
     [](SandboxPlan& p) {
       remove_seq(p.argv, {"--cap-drop", "ALL"});
     }},
    // Both pid namespaces go: bwrap's and the session's (process/session_init.h).
    {"no-unshare-pid",
     [](SandboxPlan& p) {
       remove_seq(p.argv, {"--unshare-pid"});
       skip_session_init(p);
     }},
    // Only the session's: bwrap's --die-with-parent alone ties the sandbox to the launcher.
    {"no-session-init", skip_session_init},
    {"no-unshare-ipc", [](SandboxPlan& p) { remove_seq(p.argv, {"--unshare-ipc"}); }},
    {"no-unshare-uts",
     [](SandboxPlan& p) {
       remove_seq(p.argv, {"--unshare-uts"});
       remove_seq(p.argv, {"--hostname", "cordon"});
     }},
    {"host-dev", host_dev},
    {"no-tmp-tmpfs", [](SandboxPlan& p) { host_dir_for_tmpfs(p.argv, "/tmp"); }},
    // /run/cordon must then already exist on the host (the test creates it).
    {"no-run-tmpfs",
     [](SandboxPlan& p) {
       host_dir_for_tmpfs(p.argv, "/run");
       for (const char* dir : {"/run/user", "/run/secrets"}) remove_tmpfs(p.argv, dir);
     }},
    {"no-home-tmpfs", no_home_tmpfs},
    {"no-account-home-tmpfs",
     [](SandboxPlan& p) {
       host_dir_for_tmpfs(p.argv, p.intent.home.account_path);
       remove_seq(p.argv, {"--remount-ro", p.intent.home.account_path});
     }},
    {"host-view", host_view},
    {"no-tmpfs-size", no_tmpfs_size},
    {"no-private-masks", no_private_masks},
    {"no-masks", [](SandboxPlan& p) { remove_masks(p, [](const std::string&) { return true; }); }},
    {"no-gitconfig",
     [](SandboxPlan& p) {
       remove_seq(p.argv, {"--setenv", "GIT_CONFIG_GLOBAL", kGitConfigPath});
       remove_seq(p.argv, {"--setenv", "GIT_CONFIG_SYSTEM", "/dev/null"});
     }},
    {"no-seccomp", no_seccomp},
    // Two independent layers refuse nested user namespaces; both go.
    {"allow-userns",
     [](SandboxPlan& p) {
       remove_seq(p.argv, {"--disable-userns"});
       no_seccomp(p);
     }},
    {"no-libexec-bind",
     [](SandboxPlan& p) {
       remove_seq(p.argv, {"--ro-bind", p.intent.libexec, p.intent.libexec});
     }},
    // The workspace's git config, hooks and protect entries stay writable (workspace/footholds.h).
    {"writable-footholds",
     [](SandboxPlan& p) {
       for (const auto& path : p.intent.workspace_protected) remove_seq(p.argv, {"--ro-bind", path, path});
     }},
    // The agent's control entries stay as writable as the state directory they lie in.
    {"writable-agent-control", writable_agent_control},
};

}  // namespace

std::vector<std::string> weakening_names() {
  std::vector<std::string> names;
  for (const SectionWeakening& w : kSectionWeakenings) names.emplace_back(w.name);
  for (const Weakening& w : kWeakenings) names.emplace_back(w.name);
  names.insert(names.end(), {"rw-bind:PATH", "bind:PATH"});
  return names;
}

void weaken_sections(SandboxSections& sections, const std::string& name) {
  for (const SectionWeakening& w : kSectionWeakenings)
    if (name == w.name) return w.apply(sections);
}

void apply_weakening(SandboxPlan& plan, const std::string& name) {
  if (is_section_weakening(name)) return;  // done on the sections (weaken_sections)
  if (name.rfind("rw-bind:", 0) == 0) {
    std::string path = name.substr(8);
    add_before_seccomp(plan.argv, {"--bind", path, path});
    return;
  }
  if (name.rfind("bind:", 0) == 0) {
    std::string path = name.substr(5);
    add_before_seccomp(plan.argv, {"--ro-bind", path, path});
    return;
  }
  for (const Weakening& w : kWeakenings)
    if (name == w.name) return w.apply(plan);
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
void apply_weakening(SandboxPlan&, const std::string&) {
  throw Error("this build has no test hooks", "rebuild with -DCORDON_TEST_HOOKS=ON", kExitConfigError);
}
}  // namespace cordon

#endif
