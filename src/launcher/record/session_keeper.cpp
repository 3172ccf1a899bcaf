#include "launcher/record/session_keeper.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "common/error.h"
#include "launcher/process/spared_children.h"
#include "launcher/record/sweep.h"

namespace cordon {
namespace {

// How long the keeper waits for the session's last processes (bwrap, the session's init) to
// let go of the state file after the launcher died: they follow it within milliseconds.
constexpr int kLockWaitMs = 3000;

// The keeper's whole life, in the forked child: nothing of it returns.
[[noreturn]] void keep(int alive_fd, const std::string& dir, const std::string& id) {
  ::prctl(PR_SET_NAME, "cordon-keeper");
  // Its own session: the launcher's process group (a shell's job, killed whole with kill -9
  // -PGID) and its terminal's hangup and job-control signals do not reach it.
  ::setsid();
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE}) ::signal(sig, SIG_IGN);
  for (int sig : {SIGTERM, SIGCHLD, SIGWINCH}) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  char word = 0;
  ssize_t n;
  do n = ::read(alive_fd, &word, 1);
  while (n < 0 && errno == EINTR);
  if (n == 1) ::_exit(0);  // dismissed: the receipt is written
  // End of file: the launcher died without its receipt.
  try {
    sweep_session(dir, id, kLockWaitMs);
  } catch (...) {
    // The next launch or `cordon sessions gc` sweeps it: nothing here may outlive the attempt.
  }
  ::_exit(0);
}

}  // namespace

SessionKeeper::SessionKeeper(const std::string& sessions_dir, const std::string& id) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0)
    throw Error(errno_text("pipe (the session keeper)", errno), "free file descriptors (ulimit -n) and launch again");
  UniqueFd read_end(ends[0]);
  alive_ = UniqueFd(ends[1]);
  pid_ = ::fork();
  if (pid_ < 0)
    throw Error(errno_text("fork (the session keeper)", errno), "free processes (ulimit -u) and launch again");
  if (pid_ == 0) {
    // Only the read end stays, at 3: not the state file (its lock must free when the launcher
    // dies), not the write end (it would wait on itself), not the launcher's streams (a
    // pipe's reader must see its end when cordon ends).
    int alive = ::fcntl(read_end.get(), F_DUPFD, 10);
    if (alive < 0 || ::dup2(alive, 3) < 0) ::_exit(0);
    ::syscall(SYS_close_range, 4U, ~0U, 0U);
    int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null >= 0; ++fd) ::dup2(null, fd);
    if (null > 3) ::close(null);
    keep(3, sessions_dir, id);
  }
  // The launcher's child, reaped here (so that no PID 1 above cordon collects it as a
  // zombie); the reaping of what the sandbox leaves behind passes over it.
  spare_child(pid_);
}

void SessionKeeper::dismiss() {
  if (pid_ <= 0) return;
  const char word = 'D';
  ssize_t ignored = ::write(alive_.get(), &word, 1);
  (void)ignored;
  alive_.reset();
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  unspare_child(pid_);
  pid_ = -1;
}

// Not dismissed: closing the write end is the launcher's death as far as the keeper can tell.
// It waits for this launcher to let go of the state file, so it is not waited for here.
SessionKeeper::~SessionKeeper() {
  alive_.reset();
  if (pid_ > 0) unspare_child(pid_);
}

}  // namespace cordon
