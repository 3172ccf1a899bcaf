#include "launcher/plan/weaken.h"

#ifdef CORDON_TEST_HOOKS

#include <algorithm>

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

// Inserts `items` just before "--seccomp" (after every mount).
void add_before_seccomp(std::vector<std::string>& argv, const std::vector<std::string>& items) {
  auto at = std::find(argv.begin(), argv.end(), "--seccomp");
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

}  // namespace

std::vector<std::string> weakening_names() {
  return {"no-sentinel",    "no-clearenv",     "no-cap-drop",  "no-unshare-pid", "no-unshare-ipc",
          "no-unshare-uts", "host-dev",        "no-tmp-tmpfs", "no-run-tmpfs",   "no-home-tmpfs",
          "no-masks",       "no-gitconfig",    "rw-bind:PATH", "bind:PATH",      "no-seccomp",
          "allow-userns",   "no-libexec-bind", "no-rlimits",   "no-cgroup"};
}

void apply_weakening(SandboxPlan& plan, const std::string& name) {
  auto& a = plan.argv;
  const std::string& home = plan.intent.home.path;
  if (name == "no-sentinel") {
    remove_seq(a, {"--setenv", "IS_SANDBOX", "1"});
  } else if (name == "no-clearenv") {
    remove_seq(a, {"--clearenv"});
    plan.inherit_environment = true;
  } else if (name == "no-rlimits") {
    plan.limits.rlimits.clear();  // the session file still states them: the intent stays
  } else if (name == "no-cgroup") {
    plan.limits.cgroup_budgets.clear();
  } else if (name == "no-cap-drop") {
    remove_seq(a, {"--cap-drop", "ALL"});
  } else if (name == "no-unshare-pid") {
    remove_seq(a, {"--unshare-pid"});
  } else if (name == "no-unshare-ipc") {
    remove_seq(a, {"--unshare-ipc"});
  } else if (name == "no-unshare-uts") {
    remove_seq(a, {"--unshare-uts"});
    remove_seq(a, {"--hostname", "cordon"});
  } else if (name == "host-dev") {
    const std::vector<std::string> fresh_dev = {"--dev", "/dev"};
    auto it = std::search(a.begin(), a.end(), fresh_dev.begin(), fresh_dev.end());
    if (it != a.end()) {
      *it = "--dev-bind";
      a.insert(it + 1, "/dev");
    }
  } else if (name == "no-tmp-tmpfs") {
    remove_seq(a, {"--tmpfs", "/tmp"});
  } else if (name == "no-run-tmpfs") {
    // /run/cordon must then already exist on the host (the test creates it).
    remove_seq(a, {"--tmpfs", "/run"});
    remove_seq(a, {"--tmpfs", "/run/user"});
    remove_seq(a, {"--tmpfs", "/run/secrets"});
  } else if (name == "no-home-tmpfs") {
    remove_seq(a, {"--tmpfs", home});
    // Masks inside a read-only host home cannot be created; they go with the tmpfs.
    remove_masks(plan, [&](const std::string& dest) { return dest != home && path_within(dest, home); });
  } else if (name == "no-masks") {
    remove_masks(plan, [](const std::string&) { return true; });
  } else if (name == "no-gitconfig") {
    remove_seq(a, {"--setenv", "GIT_CONFIG_GLOBAL", kGitConfigPath});
    remove_seq(a, {"--setenv", "GIT_CONFIG_SYSTEM", "/dev/null"});
  } else if (name.rfind("rw-bind:", 0) == 0) {
    std::string path = name.substr(8);
    add_before_seccomp(a, {"--bind", path, path});
  } else if (name.rfind("bind:", 0) == 0) {
    std::string path = name.substr(5);
    add_before_seccomp(a, {"--ro-bind", path, path});
  } else if (name == "no-seccomp") {
    remove_seq(a, {"--seccomp", std::to_string(kSeccompFd)});
    plan.skip_seccomp = true;
  } else if (name == "allow-userns") {
    // Two independent layers refuse nested user namespaces; both go.
    remove_seq(a, {"--disable-userns"});
    remove_seq(a, {"--seccomp", std::to_string(kSeccompFd)});
    plan.skip_seccomp = true;
  } else if (name == "no-libexec-bind") {
    const std::string& libexec = plan.intent.libexec;
    remove_seq(a, {"--ro-bind", libexec, libexec});
  } else {
    std::string known;
    for (const auto& n : weakening_names()) known += " " + n;
    throw Error("unknown weakening \"" + name + "\"", "one of:" + known, kExitConfigError);
  }
}

}  // namespace cordon

#else

#include "common/error.h"

namespace cordon {
std::vector<std::string> weakening_names() { return {}; }
void apply_weakening(SandboxPlan&, const std::string&) {
  throw Error("this build has no test hooks", "rebuild with -DCORDON_TEST_HOOKS=ON", kExitConfigError);
}
}  // namespace cordon

#endif
