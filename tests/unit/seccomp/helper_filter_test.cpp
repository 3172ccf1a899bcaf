// The helpers' filter (common/seccomp_policy.h build_helper_rules): the filter cordon-egress-
// proxy and the keepers install on themselves (common/seccomp_install.h). Its table holds the
// sandbox's whole table, and each probe runs twice in a fresh child: with the filter installed
// it gets the filter's answer, and without it (the control) the kernel's own, different one; so
// each assertion fails if its rule is missing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/landlock_abi.h"
#include "common/seccomp_compile.h"
#include "common/seccomp_install.h"
#include "common/seccomp_policy.h"

namespace {

using namespace cordon::seccomp;

constexpr int kSetupFail = 250;

int result(long rc) { return rc < 0 ? errno : 0; }

// `probe` in a fresh child, with the helpers' filter installed first or not: its errno (0 = it
// worked), kSetupFail when the filter did not install.
int in_child(int (*probe)(), bool filtered) {
  static const std::vector<sock_filter> program = compile_program(build_helper_rules());
  const pid_t pid = ::fork();
  if (pid < 0) return kSetupFail;
  if (pid == 0) {
    if (filtered && install_program(program) != 0) ::_exit(kSetupFail);
    ::_exit(probe());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : kSetupFail;
}

std::string name(int err) {
  if (err == 0) return "ok";
  if (err == kSetupFail) return "setup failed";
  const char* n = ::strerrorname_np(err);
  return n ? n : std::to_string(err);
}

TEST(HelperFilterTable, HoldsTheSandboxTableFirst) {
  const std::vector<Rule> sandbox = build_rules({});
  const std::vector<Rule> helper = build_helper_rules();
  ASSERT_GT(helper.size(), sandbox.size());
  for (size_t i = 0; i < sandbox.size(); ++i) EXPECT_EQ(describe(helper[i]), describe(sandbox[i])) << i;
  std::string added;
  for (size_t i = sandbox.size(); i < helper.size(); ++i) added += describe(helper[i]) + "\n";
  for (const char* call : {"execve:", "execveat:", "fork:", "vfork:", "unshare:", "chroot:", "open_by_handle_at:",
                           "landlock_create_ruleset:", "landlock_add_rule:", "landlock_restrict_self:"})
    EXPECT_NE(added.find(std::string(call) + " EPERM\n"), std::string::npos) << call << "\n" << added;
  EXPECT_NE(added.find("clone: EPERM if a0 & 0x10000 == 0x0\n"), std::string::npos) << added;  // CLONE_THREAD
  EXPECT_NE(rules_digest(helper), rules_digest(sandbox));
}

struct HelperProbe {
  const char* name;
  int (*fn)();
  int filtered;    // the filter's answer
  bool root_only;  // unprivileged, the kernel may refuse with EPERM itself
};

const std::vector<HelperProbe>& helper_probes() {
  static const std::vector<HelperProbe> list = {
      {"execve",
       [] {
         char* none[] = {nullptr};
         return result(::execve("/nonexistent/cordon-helper-probe", none, none));
       },
       EPERM, false},
      {"execveat",
       [] {
         char* none[] = {nullptr};
         return result(::syscall(SYS_execveat, AT_FDCWD, "/nonexistent/cordon-helper-probe", none, none, 0));
       },
       EPERM, false},
      {"fork",
       [] {
         const pid_t p = ::fork();
         if (p == 0) ::_exit(0);
         if (p > 0) ::waitpid(p, nullptr, 0);
         return result(p);
       },
       EPERM, false},
      {"unshare_uts", [] { return result(::unshare(CLONE_NEWUTS)); }, EPERM, true},
      {"chroot", [] { return result(::chroot("/nonexistent/cordon-helper-probe")); }, EPERM, true},
      {"landlock_create_ruleset",
       [] {
         return result(::syscall(SYS_landlock_create_ruleset, nullptr, 0, cordon::landlock::kCreateRulesetVersion));
       },
       EPERM, false},
  };
  return list;
}

TEST(HelperFilter, EachDeniedCallGetsTheFiltersAnswerAndTheControlDoesNot) {
  const bool root = ::geteuid() == 0;
  for (const HelperProbe& p : helper_probes()) {
    EXPECT_EQ(name(in_child(p.fn, true)), name(p.filtered)) << p.name;
    const int control = in_child(p.fn, false);
    if (p.root_only && !root && control == EPERM) continue;
    EXPECT_NE(name(control), name(p.filtered)) << p.name << ": without the filter the kernel says the same";
  }
}

TEST(HelperFilter, ThreadsStillStart) {
  auto thread_starts = [] {
    bool ran = false;
    try {
      std::thread t([&ran] { ran = true; });
      t.join();
    } catch (const std::exception&) {
      return EAGAIN;
    }
    return ran ? 0 : EINVAL;
  };
  EXPECT_EQ(name(in_child(+thread_starts, true)), "ok");
}

}  // namespace
