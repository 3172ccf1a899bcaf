#include "launcher/process/exec_setup.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>

#include "common/error.h"

namespace cordon {

void reset_signal_dispositions() {
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &default_action, nullptr);  // EINVAL for gaps: fine
}

bool die_with_launcher(pid_t launcher_pid) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return false;
  // The launcher may have died between fork and prctl: then no signal will ever come.
  return ::getppid() == launcher_pid;
}

bool become_session_helper(pid_t launcher_pid, const sigset_t* keep_blocked) {
  if (!die_with_launcher(launcher_pid)) return false;
  ::setsid();
  reset_signal_dispositions();
  sigset_t mask;
  sigemptyset(&mask);
  if (keep_blocked) mask = *keep_blocked;
  return ::sigprocmask(SIG_SETMASK, &mask, nullptr) == 0;
}

void refuse_from_child(int error_fd, const std::string& what, const std::string& fix) {
  std::string report = what + "\n" + fix;
  ssize_t ignored = ::write(error_fd, report.data(), report.size());
  (void)ignored;
  ::_exit(kExitLaunchRefused);
}

}  // namespace cordon
