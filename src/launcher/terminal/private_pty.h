// The sandbox's own terminal: a new pty pair. The launcher keeps the master and relays it;
// the launcher's forked child makes a new session whose controlling terminal is the slave, so
// the sandbox never holds the operator's terminal (nothing it does with a terminal, an ioctl,
// a mode or a byte, reaches the operator's except through the relay's filter).
#pragma once

#include <sys/ioctl.h>
#include <termios.h>

#include "common/unique_fd.h"

namespace cordon::terminal {

class PrivatePty {
 public:
  // The slave starts with `settings` (the operator's, so erase and interrupt keys stay the
  // same) and `size`. Throws cordon::Error when no pty can be made.
  PrivatePty(const termios& settings, const winsize& size);

  int master() const { return master_.get(); }
  int slave() const { return slave_.get(); }
  int null() const { return null_.get(); }
  void set_size(const winsize& size) const;  // the kernel sends SIGWINCH to the sandbox's foreground group
  // After the fork: every process of the session holds the slave; once they are all gone the
  // master reads EIO, which is how the relay knows the sandbox's last output has arrived.
  void close_slave() { slave_.reset(); }

 private:
  UniqueFd master_, slave_;
  UniqueFd null_;  // /dev/null, for a terminal stdin whose keystrokes are not relayed
};

// In the launcher's forked child, before anything else: a new session with the slave as its
// controlling terminal, on every standard fd in `fds` (bit N = fd N); stdin reads /dev/null
// instead when `stdin_null`. Async-signal-safe; false when a step failed.
bool attach_private_pty(int slave, int null_fd, unsigned fds, bool stdin_null);

}  // namespace cordon::terminal
