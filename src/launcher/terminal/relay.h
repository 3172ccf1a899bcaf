// The private terminal's relay, in the launcher: keystrokes from the operator's terminal to the
// sandbox's pty, the pty's output through the filter to the operator's terminal, window-size
// changes, and job control (Ctrl-Z stops the sandbox's foreground group and cordon, `fg`
// continues both).
// It never blocks: both directions are bounded buffers on non-blocking descriptors, and a
// full buffer stops reading its source until it drains. The operator's terminal is restored
// when the relay finishes, and by the terminal keeper if cordon is killed.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "launcher/terminal/operator_terminal.h"
#include "launcher/terminal/output_filter.h"
#include "launcher/terminal/private_pty.h"
#include "launcher/terminal/terminal_keeper.h"
#include "launcher/terminal/terminal_plan.h"
#include "launcher/terminal/transcript.h"

namespace cordon::terminal {

// What the relay saw, for the receipt.
struct RelayReport {
  std::array<uint64_t, kTerminalClassCount> dropped{};  // sequences the filter dropped, per class
  uint64_t bytes_to_operator = 0;
  uint64_t bytes_from_operator = 0;
  bool output_cut = false;  // the operator's terminal stopped taking output at the end
};

inline constexpr size_t kRelayPollFds = 2;

class Relay {
 public:
  // The operator's terminal, the pty and the keeper; nothing is raw yet. What the pty says also
  // goes to `transcript` when given. Throws cordon::Error.
  explicit Relay(const TerminalPlan& plan, Transcript* transcript = nullptr);
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  // In the launcher's forked child (async-signal-safe): the sandbox's terminal streams become
  // the pty (unless the plan's test hook keeps the operator's).
  bool attach_in_child() const;
  // Whether the sandbox's streams are the private pty (its session led by the launcher's child).
  bool attaches() const { return plan_.attach; }
  // After the fork of `session_group` (the launcher's child, which leads the pty's session and
  // its first process group): the launcher's copy of the slave closes, the operator's terminal
  // goes raw.
  void start(pid_t session_group);

  // Poll integration: fills `fds` (kRelayPollFds entries, fd -1 when not wanted now) and
  // moves bytes for whichever are ready.
  void poll_fds(pollfd* fds) const;
  void on_ready(const pollfd* fds);
  // A job that stops itself (terminal/stopped_job.h): after a suspend key went in, the relay
  // looks for the job's stop every tick_timeout_ms() (-1: not looking) and suspends cordon
  // when it finds one. tick() is called at least that often, and after every wake-up.
  int tick_timeout_ms() const;
  void tick();
  // SIGWINCH: the operator's window size, passed to the pty.
  void window_changed();
  // A signal the operator's terminal sent cordon (when keystrokes are not relayed its Ctrl-C
  // still makes SIGINT), or SIGTSTP sent to cordon: the pty sends it to the sandbox's
  // foreground group, as a terminal would (SIGTSTP: suspend()).
  void signal_from_terminal(int sig);
  // The operator's terminal hung up (its window closed, its ssh connection dropped): nothing
  // more is read from or written to it. The caller ends the session (run/sandbox.cpp).
  bool operator_hung_up() const { return operator_gone_; }
  void operator_hangup() { operator_gone_ = true; }

  // Ctrl-Z: the sandbox's foreground group is stopped, cordon gives the terminal back and
  // stops itself; when continued (`fg`), it claims the terminal again and continues the group.
  // Only while the session's own group is in the foreground: a job-control shell inside that
  // runs a job of its own suspends that job itself, as on any terminal.
  void suspend();

  // The sandbox ended: the rest of its output, the filter's end, the operator's terminal
  // restored and the keeper dismissed.
  RelayReport finish();

 private:
  void read_pty();
  void write_operator();
  void read_operator();
  void write_pty();
  void flush_to_operator(int timeout_ms);
  void drain_pty();  // what the pty holds now, into the operator's buffer (bounded)
  bool session_group_in_foreground() const;

  TerminalPlan plan_;
  OperatorTerminal operator_;
  PrivatePty pty_;
  OutputFilter filter_;
  std::unique_ptr<TerminalKeeper> keeper_;
  Transcript* transcript_ = nullptr;
  std::string to_operator_, to_pty_;
  bool pty_open_ = true;        // false once the master read EIO (every slave closed)
  bool operator_gone_ = false;  // the operator's terminal hung up: not polled any more
  RelayReport report_;
  pid_t session_group_ = -1;
  pid_t watched_group_ = -1;  // the foreground group whose stop tick() looks for; -1: none
  std::chrono::steady_clock::time_point watch_until_;
};

}  // namespace cordon::terminal
