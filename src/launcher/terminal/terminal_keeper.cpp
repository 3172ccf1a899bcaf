#include "launcher/terminal/terminal_keeper.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/text.h"
#include "launcher/terminal/output_filter.h"

namespace cordon::terminal {
namespace {

constexpr size_t kSharedBytes = 4096;

// Whether the terminal is still in the raw mode the relay set (cfmakeraw: no canonical input,
// no signals, no output processing). A shell whose job died of a signal restores its own
// settings first (bash does), and its line editor may already hold the terminal.
bool still_raw(int terminal_fd) {
  termios now{};
  if (::tcgetattr(terminal_fd, &now) != 0) return false;
  return (now.c_lflag & (ICANON | ISIG | ECHO)) == 0 && (now.c_oflag & OPOST) == 0;
}

// After the launcher's death, in the keeper: the terminal (at 3) back to blocking writes,
// the modes that were on undone, the saved settings put back unless the shell already took
// the terminal back (putting them over its line editor's echoed its first line twice).
void restore(int terminal_fd, const termios& saved, int restore_flags, const std::atomic<uint32_t>* modes) {
  ::fcntl(terminal_fd, F_SETFL, restore_flags >= 0 ? restore_flags : (::fcntl(terminal_fd, F_GETFL) & ~O_NONBLOCK));
  write_all(terminal_fd, terminal_reset_sequence(modes->load(std::memory_order_relaxed)), "");
  // Drained first, so that the look and the restore are a moment apart, not a drain apart.
  ::tcdrain(terminal_fd);
  if (still_raw(terminal_fd)) ::tcsetattr(terminal_fd, TCSANOW, &saved);
}

}  // namespace

TerminalKeeper::TerminalKeeper(int terminal_fd, const termios& saved, int restore_flags) {
  void* page = ::mmap(nullptr, kSharedBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) throw Error(errno_text("mmap (the terminal keeper's page)", errno), "");
  shared_ = new (page) std::atomic<uint32_t>(0);
  // Only the terminal (at 3) and its pipe stay open in it: no end of the pty, no file of the
  // session (process/keeper_process.h).
  process_ = std::make_unique<KeeperProcess>(
      "cordon-tty", "the terminal keeper", std::vector<int>{terminal_fd},
      [saved, restore_flags, modes = shared_] { restore(3, saved, restore_flags, modes); },
      terminal_keeper_confinement());
}

void TerminalKeeper::dismiss() {
  if (process_) process_->dismiss();
}

TerminalKeeper::~TerminalKeeper() {
  dismiss();
  if (shared_) ::munmap(shared_, kSharedBytes);
}

}  // namespace cordon::terminal
