// The termination signals around a launch: held blocked while cordon sets up and tears down
// (a default action in between would kill the launcher halfway and leave cgroups, pasta or
// temp files behind), watched through sigwaitinfo while the sandbox runs, and unblocked for
// the sandbox itself.
#pragma once

#include <signal.h>

namespace cordon {

// SIGINT, SIGTERM, SIGHUP and SIGQUIT: forwarded to the sandbox while it runs.
inline constexpr int kTerminationSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// Holds the termination signals blocked while it lives. Signals that arrive meanwhile stay
// pending: before the fork, run_sandbox stops with "interrupted" (nothing ran); while the
// sandbox runs it forwards them; after teardown they take effect.
class TerminationSignalsBlocked {
 public:
  TerminationSignalsBlocked();
  ~TerminationSignalsBlocked();
  TerminationSignalsBlocked(const TerminationSignalsBlocked&) = delete;
  TerminationSignalsBlocked& operator=(const TerminationSignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

// While it lives, SIGCHLD and the termination signals are blocked so the supervisor receives
// them through sigwaitinfo (forwarding cannot race with the child's exit); the mask before
// is restored when it goes away.
class SignalWatch {
 public:
  // With the private terminal's relay, SIGWINCH and SIGTSTP are the launcher's too (the relay
  // passes the window size on and suspends the session). Throws cordon::Error when the mask
  // cannot be set.
  explicit SignalWatch(bool terminal_relay = false);
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  const sigset_t& watched() const { return watched_; }
  // SIGCHLD and the termination signals: what the session's waiting processes pass on.
  const sigset_t& forwarded() const { return forwarded_; }
  // The mask the sandbox starts with: the one before, with every watched signal unblocked,
  // even when the caller held them blocked around setup (TerminationSignalsBlocked).
  sigset_t child_mask() const;
  // A terminal's Ctrl-C or hang-up that arrived while the launcher was setting up reached no
  // sandbox: throws "interrupted" (exit 128+N) instead of starting one the user interrupted.
  void throw_if_interrupted() const;

 private:
  sigset_t watched_;
  sigset_t forwarded_;
  sigset_t original_;
};

}  // namespace cordon
