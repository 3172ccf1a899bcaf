// What restores the operator's terminal when cordon itself cannot: a small process forked
// before the terminal goes raw, which waits on a pipe only the launcher writes. Dismissed at
// the end of a session (the launcher restored the terminal itself), it exits; when the
// launcher dies without dismissing it (SIGKILL), the pipe reads end-of-file and the keeper
// puts back the saved settings and descriptor flags and undoes the modes the filter let
// through (read from a shared page the relay keeps current), then exits. It is in the
// launcher's cgroup but in a session and process group of its own (a SIGKILL of the
// launcher's group does not reach it), ignores the terminal's job-control signals, and never
// touches the sandbox.
#pragma once

#include <sys/types.h>
#include <termios.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "launcher/process/keeper_process.h"

namespace cordon::terminal {

class TerminalKeeper {
 public:
  // Throws cordon::Error when the keeper cannot be started (then nothing went raw).
  TerminalKeeper(int terminal_fd, const termios& saved, int restore_flags);
  ~TerminalKeeper();  // dismisses and reaps it
  TerminalKeeper(const TerminalKeeper&) = delete;
  TerminalKeeper& operator=(const TerminalKeeper&) = delete;

  // The modes on now (output_filter.h TerminalMode bits), for a restore after the launcher's death.
  void set_modes(uint32_t modes) { shared_->store(modes, std::memory_order_relaxed); }
  // The launcher restored the terminal: the keeper exits without writing; reaped here.
  void dismiss();

 private:
  std::atomic<uint32_t>* shared_ = nullptr;  // one page shared with the keeper
  std::unique_ptr<KeeperProcess> process_;   // after shared_: it reads the page
};

}  // namespace cordon::terminal
