// The operator's terminal as the relay uses it: an open file description of its own (the
// relay's O_NONBLOCK never reaches the shell that shares the original one), its settings
// saved before the session and put back after it, and raw mode while keystrokes are relayed.
#pragma once

#include <sys/ioctl.h>
#include <termios.h>

#include "common/unique_fd.h"

namespace cordon::terminal {

class OperatorTerminal {
 public:
  // `fds`: bit N set when the launcher's fd N is a terminal. Keystrokes are relayed when stdin
  // and stdout are both the terminal (an interactive session); a pipeline's pager keeps the
  // terminal's input to itself. Throws cordon::Error when the terminal cannot be used.
  explicit OperatorTerminal(unsigned fds);
  ~OperatorTerminal();
  OperatorTerminal(const OperatorTerminal&) = delete;
  OperatorTerminal& operator=(const OperatorTerminal&) = delete;

  int fd() const { return fd_.get(); }
  bool relays_input() const { return relays_input_; }
  const termios& saved() const { return saved_; }
  // The flags the descriptor must get back (it may be the shell's own description, reopening
  // failed: then O_NONBLOCK is set on it for the session and undone).
  int restore_flags() const { return restore_flags_; }
  winsize size() const;

  // For the relay: raw mode when keystrokes are relayed (every byte, Ctrl-C and Ctrl-Z
  // included, goes to the private pty, whose own line discipline makes the sandbox's signals),
  // and the descriptor non-blocking.
  void claim();
  // The saved settings and descriptor flags back (at the end, and while cordon is suspended);
  // idempotent.
  void give_back();

 private:
  UniqueFd fd_;
  bool relays_input_ = false;
  bool raw_ = false;
  bool nonblocking_ = true;  // the constructor leaves the descriptor non-blocking
  termios saved_{};
  int restore_flags_ = -1;  // -1: a description of our own, nothing to put back
};

}  // namespace cordon::terminal
