#include "launcher/process/keeper_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "common/drop_capabilities.h"
#include "common/error.h"
#include "common/landlock_abi.h"
#include "common/landlock_helper.h"
#include "common/seccomp_compile.h"
#include "common/seccomp_install.h"

namespace cordon {
namespace {

// The helpers' filter as BPF. Compiled once per launcher, before the fork, for a keeper that
// installs it before it waits (its child must not allocate while the launcher may have a
// thread); a keeper that confines itself at its action compiles its own there, after the
// launcher died, so no launch pays for it.
std::vector<sock_filter> helper_filter() { return seccomp::compile_program(seccomp::build_helper_rules()); }

// In the child: the Landlock domain, then the filter (which denies the landlock_* calls). A
// keeper that cannot enter what the kernel offers exits rather than keep unconfined.
void confine(const KeeperConfinement& c, const std::vector<sock_filter>& precompiled) {
  if (c.drop_capabilities && drop_all_capabilities() != 0) ::_exit(0);
  if (c.handle_fs || c.scopes != 0) {
    landlock::HelperRuleset ruleset;
    ruleset.handle_fs = c.handle_fs;
    ruleset.unhandled = c.unhandled_fs;
    ruleset.grants = c.grants;
    ruleset.scopes = c.scopes;
    const landlock::HelperDomain domain = landlock::enter_helper_domain(ruleset);
    if (!domain.applied && domain.abi >= 1 && (domain.handled_fs != 0 || domain.scoped != 0)) ::_exit(0);
  }
  if (!c.helper_filter) return;
  std::vector<sock_filter> compiled;
  if (precompiled.empty()) {
    try {
      compiled = helper_filter();
    } catch (...) {
      ::_exit(0);  // no filter: no action, as for a domain it could not enter
    }
  }
  const std::vector<sock_filter>& filter = precompiled.empty() ? compiled : precompiled;
  if (filter.empty() || seccomp::install_program(filter) != 0) ::_exit(0);
}

// The keeper's whole life, in the forked child: nothing of it returns.
[[noreturn]] void keep(const char* name, int alive_fd, const std::function<void()>& on_launcher_death,
                       const KeeperConfinement& confinement, const std::vector<sock_filter>& filter) {
  ::prctl(PR_SET_NAME, name);
  // Its own session: the launcher's process group (a shell's job, killed whole with kill -9
  // -PGID) does not reach it. What it writes to a terminal it writes through a descriptor,
  // which needs no controlling terminal.
  ::setsid();
  if (!confinement.at_action) confine(confinement, filter);
  // The terminal's job-control signals must not stop or kill it before it acts, nor a hangup;
  // a write or tcsetattr from a background group must not stop it either (SIGTTOU).
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE}) ::signal(sig, SIG_IGN);
  for (int sig : {SIGTERM, SIGCHLD, SIGWINCH}) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  char word = 0;
  ssize_t n;
  do n = ::read(alive_fd, &word, 1);
  while (n < 0 && errno == EINTR);
  if (n == 1) ::_exit(0);  // dismissed
  if (confinement.at_action) confine(confinement, filter);
  try {
    on_launcher_death();
  } catch (...) {
    // Nothing of the attempt may outlive it: the keeper exits whatever its action threw.
  }
  ::_exit(0);
}

const std::vector<sock_filter>& precompiled_helper_filter() {
  static const std::vector<sock_filter> filter = helper_filter();
  return filter;
}

}  // namespace

KeeperConfinement terminal_keeper_confinement() {
  KeeperConfinement c;
  c.handle_fs = true;
  c.scopes = landlock::kScopeAbstractUnixSocket | landlock::kScopeSignal;
  c.helper_filter = true;
  c.drop_capabilities = true;
  return c;
}

KeeperConfinement session_keeper_confinement(std::vector<landlock::PathGrant> reach, bool signal_scope) {
  KeeperConfinement c;
  c.handle_fs = true;
  c.unhandled_fs = landlock::kAccessFsReadFile | landlock::kAccessFsReadDir;
  c.grants = std::move(reach);
  c.scopes = landlock::kScopeAbstractUnixSocket | (signal_scope ? landlock::kScopeSignal : 0);
  c.helper_filter = true;
  c.at_action = true;
  return c;
}

KeeperProcess::KeeperProcess(const char* name, const char* what, const std::vector<int>& kept,
                             const std::function<void()>& on_launcher_death, const KeeperConfinement& confinement) {
  static const std::vector<sock_filter> no_filter;
  const bool before_waiting = confinement.helper_filter && !confinement.at_action;
  const std::vector<sock_filter>& filter = before_waiting ? precompiled_helper_filter() : no_filter;
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0)
    throw Error(errno_text(std::string("pipe (") + what + ")", errno),
                "free file descriptors (ulimit -n) and launch again");
  UniqueFd read_end(ends[0]);
  alive_ = UniqueFd(ends[1]);
  pid_ = ::fork();
  if (pid_ < 0)
    throw Error(errno_text(std::string("fork (") + what + ")", errno), "free processes (ulimit -u) and launch again");
  if (pid_ > 0) return;
  // Its descriptors at 3, 4, ..., then the read end; everything else closed (the write end
  // too, or it would wait on itself).
  std::vector<int> moved;
  moved.reserve(kept.size() + 1);
  for (int fd : kept) moved.push_back(::fcntl(fd, F_DUPFD, 10 + static_cast<int>(kept.size())));
  moved.push_back(::fcntl(read_end.get(), F_DUPFD, 10 + static_cast<int>(kept.size())));
  for (size_t i = 0; i < moved.size(); ++i)
    if (moved[i] < 0 || ::dup2(moved[i], 3 + static_cast<int>(i)) < 0) ::_exit(0);
  const int alive = 3 + static_cast<int>(kept.size());
  ::syscall(SYS_close_range, static_cast<unsigned>(alive + 1), ~0U, 0U);
  int null = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3 && null >= 0; ++fd) ::dup2(null, fd);
  if (null > alive) ::close(null);
  keep(name, alive, on_launcher_death, confinement, filter);
}

void KeeperProcess::dismiss() {
  if (pid_ <= 0) return;
  const char word = 'D';
  ssize_t ignored = ::write(alive_.get(), &word, 1);
  (void)ignored;
  alive_.reset();
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

KeeperProcess::~KeeperProcess() { alive_.reset(); }

}  // namespace cordon
