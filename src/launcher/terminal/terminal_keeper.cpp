#include "launcher/terminal/terminal_keeper.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "common/error.h"
#include "launcher/terminal/output_filter.h"

namespace cordon::terminal {
namespace {

constexpr size_t kSharedBytes = 4096;

void write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// The keeper's whole life. Only its two descriptors stay open: it holds no end of the pty and
// no file of the session.
[[noreturn]] void keep(int terminal_fd, int alive_fd, const termios& saved, int restore_flags,
                       const std::atomic<uint32_t>* modes) {
  ::prctl(PR_SET_NAME, "cordon-tty");
  // Its own session: a SIGKILL of the launcher's whole process group (kill -9 -PGID, a shell
  // killing the job) does not reach it. It writes to the terminal through its descriptor,
  // which needs no controlling terminal.
  ::setsid();
  // Still in the operator's foreground group when the launcher dies: the terminal's
  // job-control signals must not stop or kill it before it restores, nor the SIGHUP the
  // kernel sends that group when the dead launcher led the terminal's session (a hung-up
  // terminal makes its writes fail instead, and it exits); a write or tcsetattr from a
  // background group must not stop it either (SIGTTOU).
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE}) ::signal(sig, SIG_IGN);
  for (int sig : {SIGTERM, SIGCHLD, SIGWINCH}) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  char word = 0;
  ssize_t n;
  do n = ::read(alive_fd, &word, 1);
  while (n < 0 && errno == EINTR);
  if (n == 1) ::_exit(0);  // dismissed: the launcher restored the terminal
  // End of file: the launcher died without restoring. Blocking writes from here on.
  ::fcntl(terminal_fd, F_SETFL, restore_flags >= 0 ? restore_flags : (::fcntl(terminal_fd, F_GETFL) & ~O_NONBLOCK));
  write_all(terminal_fd, terminal_reset_sequence(modes->load(std::memory_order_relaxed)));
  ::tcsetattr(terminal_fd, TCSADRAIN, &saved);
  ::_exit(0);
}

}  // namespace

TerminalKeeper::TerminalKeeper(int terminal_fd, const termios& saved, int restore_flags) {
  void* page = ::mmap(nullptr, kSharedBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) throw Error(errno_text("mmap (the terminal keeper's page)", errno), "");
  shared_ = new (page) std::atomic<uint32_t>(0);
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) throw Error(errno_text("pipe (the terminal keeper)", errno), "");
  UniqueFd read_end(ends[0]);
  alive_ = UniqueFd(ends[1]);
  pid_ = ::fork();
  if (pid_ < 0) throw Error(errno_text("fork (the terminal keeper)", errno), "");
  if (pid_ == 0) {
    // Its two descriptors at 3 and 4, everything else closed (the write end too, or it would
    // wait on itself).
    int tty = ::fcntl(terminal_fd, F_DUPFD, 10);
    int alive = ::fcntl(read_end.get(), F_DUPFD, 10);
    if (tty < 0 || alive < 0 || ::dup2(tty, 3) < 0 || ::dup2(alive, 4) < 0) ::_exit(0);
    ::syscall(SYS_close_range, 5U, ~0U, 0U);
    // Nor the launcher's standard streams: a pipe's reader must see its end when cordon ends.
    int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null >= 0; ++fd) ::dup2(null, fd);
    if (null > 4) ::close(null);
    keep(3, 4, saved, restore_flags, shared_);
  }
}

void TerminalKeeper::dismiss() {
  if (pid_ <= 0) return;
  const char word = 'D';
  ssize_t ignored = ::write(alive_.get(), &word, 1);
  (void)ignored;
  alive_.reset();
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

TerminalKeeper::~TerminalKeeper() {
  dismiss();
  if (shared_) ::munmap(shared_, kSharedBytes);
}

}  // namespace cordon::terminal
