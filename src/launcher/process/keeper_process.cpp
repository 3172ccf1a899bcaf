#include "launcher/process/keeper_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "common/error.h"

namespace cordon {
namespace {

// The keeper's whole life, in the forked child: nothing of it returns.
[[noreturn]] void keep(const char* name, int alive_fd, const std::function<void()>& on_launcher_death) {
  ::prctl(PR_SET_NAME, name);
  // Its own session: the launcher's process group (a shell's job, killed whole with kill -9
  // -PGID) does not reach it. What it writes to a terminal it writes through a descriptor,
  // which needs no controlling terminal.
  ::setsid();
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
  try {
    on_launcher_death();
  } catch (...) {
    // Nothing of the attempt may outlive it: the keeper exits whatever its action threw.
  }
  ::_exit(0);
}

}  // namespace

KeeperProcess::KeeperProcess(const char* name, const char* what, const std::vector<int>& kept,
                             const std::function<void()>& on_launcher_death) {
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
  keep(name, alive, on_launcher_death);
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
