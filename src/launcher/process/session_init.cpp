#include "launcher/process/session_init.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "common/error.h"
#include "common/text.h"
#include "launcher/process/exec_setup.h"

namespace cordon {
namespace {

void write_proc(const std::string& path, const std::string& text) {
  if (int err = write_control_file(path, text)) throw Error(errno_text("writing " + path, err), "nothing ran");
}

// Ends this process the way `status` says its child ended: the same exit code, or death by
// the same signal (this process is not an init, so the signal takes effect).
[[noreturn]] void end_like(int status) {
  if (WIFEXITED(status)) ::_exit(WEXITSTATUS(status));
  const int died_of = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  ::signal(died_of, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, died_of);
  ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
  ::kill(::getpid(), died_of);
  ::_exit(128 + died_of);
}

// The init's parent-death signal. Not SIGKILL: a process killed outright closes its files
// before the kernel kills the rest of its pid namespace, and the last close of the command
// gate (bwrap's --block-fd, which the init holds open) would let bwrap's child start the
// command in that moment. On this signal the init kills every process of its namespace first
// (each then has SIGKILL pending and never runs again), then exits. Never forwarded to the
// sandbox: only the kernel (the parent's death) or the host's own user can send it.
constexpr int kInitParentDeathSignal = SIGUSR1;

// Waits for `child`, passing the signals in `forwarded` (except SIGCHLD) on to it and reaping
// every other child (an init inherits the namespace's orphans). Returns `child`'s wait status.
// `death_signal` (0 = none), when it arrives, kills the whole namespace and exits.
int wait_forwarding(pid_t child, const sigset_t& forwarded, int death_signal = 0) {
  for (;;) {
    siginfo_t info{};
    int sig = ::sigwaitinfo(&forwarded, &info);
    if (sig < 0) continue;  // EINTR
    if (sig == death_signal) {
      ::kill(-1, SIGKILL);  // from a namespace's init: every other process in it and below
      ::_exit(kExitLaunchRefused);
    }
    if (sig != SIGCHLD) {
      // A terminal's signals already reached the whole foreground group.
      if (info.si_code != SI_KERNEL) ::kill(child, sig);
      continue;
    }
    int status = 0;
    pid_t reaped;
    while ((reaped = ::waitpid(-1, &status, WNOHANG)) > 0)
      if (reaped == child) return status;
  }
}

// A handler only so that the init can be sent these signals at all: the kernel drops a
// signal sent to a pid namespace's init that has no handler for it. They stay blocked and are
// taken by sigwaitinfo; the handler never runs.
void unused_handler(int) {}

// With the private terminal, the session takes a process group of its own and the terminal's
// foreground. The launcher's child leads the pty's session, and its parent is in another
// session, so its group is orphaned: the kernel discards a job-control stop (SIGTSTP, SIGTTIN,
// SIGTTOU) sent into an orphaned group, and a program that suspends itself after restoring
// the terminal (vim, Claude Code) would never stop. The init's group has its leader's parent
// (that child) in the same session and another group: not orphaned, so such a stop takes
// effect as on any terminal, and the relay notices it (terminal/relay.h). Only when one of the
// standard streams is the session's controlling terminal; SIGTTOU is held meanwhile, since a
// background group's tcsetpgrp would be stopped by it.
void take_terminal_foreground() {
  int terminal = -1;
  for (int fd = 0; fd < 3 && terminal < 0; ++fd)
    if (::tcgetpgrp(fd) >= 0) terminal = fd;
  if (terminal < 0 || ::setpgid(0, 0) != 0) return;
  sigset_t ttou, before;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  ::sigprocmask(SIG_BLOCK, &ttou, &before);
  ::tcsetpgrp(terminal, ::getpgrp());
  ::sigprocmask(SIG_SETMASK, &before, nullptr);
}

// pid 1 of the session's namespace, whose death takes every process of the session with it:
// tied to its parent, mounts the namespace's /proc, forks the process that becomes bwrap
// (returns only there) and waits for it; never returns itself.
void run_session_init(int alive_fd, int report_fd, const sigset_t& forwarded, int error_fd, bool leads_terminal) {
  // Blocked before it can arrive, and taken by sigwaitinfo like the forwarded signals.
  sigset_t waited = forwarded;
  sigaddset(&waited, kInitParentDeathSignal);
  ::sigprocmask(SIG_BLOCK, &waited, nullptr);
  if (::prctl(PR_SET_PDEATHSIG, kInitParentDeathSignal) != 0) ::_exit(kExitLaunchRefused);
  pollfd parent{alive_fd, POLLIN, 0};
  if (::poll(&parent, 1, 0) != 0) ::_exit(kExitLaunchRefused);  // hung up: it died before prctl
  if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
    refuse_from_child(error_fd, errno_text("mounting /proc for the session's pid namespace", errno), "nothing ran");
  struct sigaction deliverable {};
  deliverable.sa_handler = unused_handler;
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGCHLD && sigismember(&waited, sig)) ::sigaction(sig, &deliverable, nullptr);
  if (leads_terminal) take_terminal_foreground();
  pid_t bwrap = ::fork();
  if (bwrap < 0) ::_exit(kExitLaunchRefused);
  if (bwrap == 0) {
    ::signal(SIGCHLD, SIG_DFL);
    reset_signal_dispositions();
    return;  // becomes bwrap
  }
  int status = wait_forwarding(bwrap, waited, kInitParentDeathSignal);
  ssize_t ignored = ::write(report_fd, &status, sizeof status);
  (void)ignored;
  ::_exit(0);
}

}  // namespace

void map_own_ids(uid_t uid, gid_t gid) {
  write_proc("/proc/self/setgroups", "deny");
  write_proc("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n");
  write_proc("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n");
}

void fork_session_init(const sigset_t& forwarded, int error_fd, bool leads_terminal) {
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  // Creating a pid namespace needs CAP_SYS_ADMIN in the current user namespace: root has it,
  // the egress jail's holder has it in its own; a user without the jail gets a user namespace
  // of their own ids first (bwrap nests its own on top, as it does in the jail).
  // A mount namespace too: bwrap reads /proc/PID of its own children, so the /proc it sees
  // must be this pid namespace's (the init mounts it).
  if (::unshare(CLONE_NEWPID | CLONE_NEWNS) != 0) {
    if (errno != EPERM) throw Error(errno_text("creating the session's pid namespace (unshare)", errno), "nothing ran");
    if (::unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS) != 0)
      throw Error(errno_text("creating the session's user and pid namespaces (unshare)", errno),
                  "enable user namespaces (user.max_user_namespaces > 0, kernel.unprivileged_userns_clone = 1; "
                  "in a container allow unshare/clone in its seccomp profile); nothing ran");
    map_own_ids(uid, gid);
  }
  // Nothing mounted in the session's mount namespace may propagate back to the host's.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    throw Error(errno_text("making the session's mounts private", errno), "nothing ran");
  // The init cannot ask getppid() whether this process is still there (a parent outside the
  // namespace shows as 0): it watches a pipe whose write end only this process holds. The
  // init reports its child's raw wait status through a second pipe, since an init cannot die
  // of a signal it sends itself.
  int alive[2], report[2];
  if (::pipe2(alive, O_CLOEXEC) != 0 || ::pipe2(report, O_CLOEXEC) != 0)
    throw Error(errno_text("pipe", errno), "nothing ran");
  pid_t init = ::fork();
  if (init < 0) throw Error(errno_text("fork of the session's init", errno), "nothing ran");
  if (init == 0) {
    ::close(alive[1]);
    ::close(report[0]);
    run_session_init(alive[0], report[1], forwarded, error_fd, leads_terminal);
    return;  // only in the process that becomes bwrap
  }
  ::close(alive[0]);
  ::close(report[1]);
  int init_status = wait_forwarding(init, forwarded);
  int bwrap_status = 0;
  if (::read(report[0], &bwrap_status, sizeof bwrap_status) == static_cast<ssize_t>(sizeof bwrap_status))
    end_like(bwrap_status);
  end_like(init_status);
}

}  // namespace cordon
