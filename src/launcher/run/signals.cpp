#include "launcher/run/signals.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "common/error.h"

namespace cordon {

TerminationSignalsBlocked::TerminationSignalsBlocked() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kTerminationSignals) sigaddset(&set, sig);
  ::sigprocmask(SIG_BLOCK, &set, &previous_);
}

TerminationSignalsBlocked::~TerminationSignalsBlocked() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }

SignalWatch::SignalWatch(bool terminal_relay) {
  sigemptyset(&forwarded_);
  sigaddset(&forwarded_, SIGCHLD);
  for (int sig : kTerminationSignals) sigaddset(&forwarded_, sig);
  watched_ = forwarded_;
  if (terminal_relay) {
    sigaddset(&watched_, SIGWINCH);
    sigaddset(&watched_, SIGTSTP);
  }
  if (::sigprocmask(SIG_BLOCK, &watched_, &original_) != 0) throw Error(errno_text("sigprocmask", errno));
}

SignalWatch::~SignalWatch() { ::sigprocmask(SIG_SETMASK, &original_, nullptr); }

sigset_t SignalWatch::child_mask() const {
  sigset_t mask = original_;
  for (int sig = 1; sig < NSIG; ++sig)
    if (sigismember(&watched_, sig)) sigdelset(&mask, sig);
  return mask;
}

void SignalWatch::throw_if_interrupted() const {
  sigset_t pending;
  if (::sigpending(&pending) != 0) return;
  for (int sig : kTerminationSignals) {
    if (!sigismember(&pending, sig)) continue;
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    timespec now{0, 0};
    ::sigtimedwait(&one, nullptr, &now);
    throw Error(std::string("interrupted by SIG") + ::sigabbrev_np(sig) + " before the sandbox started; nothing ran",
                "", 128 + sig);
  }
}

}  // namespace cordon
