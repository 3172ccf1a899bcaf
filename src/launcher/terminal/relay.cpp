#include "launcher/terminal/relay.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "launcher/terminal/stopped_job.h"

namespace cordon::terminal {
namespace {

// Bounds on what the relay holds in each direction; past them it stops reading the source.
constexpr size_t kBufferBytes = size_t{64} * 1024;
constexpr size_t kReadBytes = size_t{16} * 1024;

// The pty's settings: the operator's own. When keystrokes are not relayed the operator's
// terminal keeps its output processing, so the pty must not do it a second time.
termios pty_settings(const OperatorTerminal& t) {
  termios settings = t.saved();
  if (!t.relays_input()) settings.c_oflag &= ~static_cast<tcflag_t>(OPOST);
  return settings;
}

// Writes what it can of `buffer` to a non-blocking `fd`; false when `fd` is gone.
bool write_some(int fd, std::string& buffer, uint64_t& counted) {
  while (!buffer.empty()) {
    ssize_t n = ::write(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == EAGAIN;
    buffer.erase(0, static_cast<size_t>(n));
    counted += static_cast<uint64_t>(n);
  }
  return true;
}

// The pty's suspend character, while its line discipline makes signals; -1 otherwise.
int suspend_character(int master) {
  termios t{};
  if (::tcgetattr(master, &t) != 0 || !(t.c_lflag & ISIG) || t.c_cc[VSUSP] == _POSIX_VDISABLE) return -1;
  return t.c_cc[VSUSP];
}

// Whether `typed` holds a key that may stop the foreground job: the pty's suspend character,
// or Ctrl-Z, which programs in raw mode read and act on themselves.
bool holds_stop_key(std::string_view typed, int master) {
  const int key = suspend_character(master);
  return typed.find('\x1a') != std::string_view::npos ||
         (key >= 0 && typed.find(static_cast<char>(key)) != std::string_view::npos);
}

// How long after a suspend key the relay looks for the job's stop, and how often.
constexpr auto kStopWatch = std::chrono::seconds(2);
constexpr int kStopWatchIntervalMs = 20;

}  // namespace

Relay::Relay(const TerminalPlan& plan, Transcript* transcript)
    : plan_(plan),
      operator_(plan.fds),
      pty_(pty_settings(operator_), operator_.size()),
      filter_(plan.pass),
      transcript_(transcript) {
  keeper_ = std::make_unique<TerminalKeeper>(operator_.fd(), operator_.saved(), operator_.restore_flags());
}

bool Relay::attach_in_child() const {
  if (!plan_.attach) return true;
  return attach_private_pty(pty_.slave(), pty_.null(), plan_.fds, !operator_.relays_input());
}

void Relay::start(pid_t session_group) {
  session_group_ = session_group;
  pty_.close_slave();
  operator_.claim();
}

void Relay::poll_fds(pollfd* fds) const {
  const bool room_out = to_operator_.size() < kBufferBytes;
  const bool room_in = to_pty_.size() < kBufferBytes;
  short pty_events = 0;
  if (pty_open_ && room_out) pty_events |= POLLIN;
  if (pty_open_ && !to_pty_.empty()) pty_events |= POLLOUT;
  short operator_events = 0;
  if (operator_.relays_input() && room_in) operator_events |= POLLIN;
  if (!to_operator_.empty()) operator_events |= POLLOUT;
  if (operator_gone_) operator_events = 0;  // a hung-up terminal polls ready for ever
  fds[0] = pollfd{pty_events ? pty_.master() : -1, pty_events, 0};
  fds[1] = pollfd{operator_events ? operator_.fd() : -1, operator_events, 0};
}

void Relay::on_ready(const pollfd* fds) {
  if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) read_pty();
  if (fds[0].revents & POLLOUT) write_pty();
  // A hangup: POLLHUP on the operator's side, with or without POLLIN (read then says 0 / EIO).
  if (fds[1].revents & (POLLHUP | POLLERR | POLLNVAL) && !(fds[1].revents & POLLIN)) operator_gone_ = true;
  if (fds[1].revents & POLLIN) read_operator();
  if (fds[1].revents & POLLOUT) write_operator();
  if (operator_gone_) to_operator_.clear();
  // Output goes out as soon as it is there; most writes finish without another poll.
  if (!to_operator_.empty()) write_operator();
  if (!to_pty_.empty()) write_pty();
}

void Relay::read_pty() {
  char buffer[kReadBytes];
  ssize_t n = ::read(pty_.master(), buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {  // EIO: every process of the session let go of the slave
    pty_open_ = false;
    return;
  }
  const std::string_view chunk(buffer, static_cast<size_t>(n));
  if (transcript_) transcript_->record('o', chunk);
  filter_.feed(chunk, to_operator_);
  keeper_->set_modes(filter_.modes());
}

void Relay::write_operator() {
  if (operator_gone_) {
    to_operator_.clear();
    return;
  }
  if (write_some(operator_.fd(), to_operator_, report_.bytes_to_operator)) return;
  to_operator_.clear();
  if (errno == EIO || errno == ENXIO) operator_gone_ = true;  // the terminal hung up
}

void Relay::read_operator() {
  char buffer[4096];
  ssize_t n = ::read(operator_.fd(), buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {  // 0 or EIO: the terminal hung up
    operator_gone_ = true;
    return;
  }
  report_.bytes_from_operator += static_cast<uint64_t>(n);
  std::string_view typed(buffer, static_cast<size_t>(n));
  const pid_t foreground = ::tcgetpgrp(pty_.master());
  // The session leader's own group (before the session init took one of its own, or without
  // one) is orphaned: its leader's parent, cordon, is in another session, and the kernel
  // never stops it on the pty's SIGTSTP. There Ctrl-Z is the relay's to act on.
  const int suspend_key = foreground == session_group_ ? suspend_character(pty_.master()) : -1;
  const size_t at = suspend_key < 0 ? std::string_view::npos : typed.find(static_cast<char>(suspend_key));
  to_pty_.append(typed.substr(0, at));
  if (at != std::string_view::npos) {
    write_pty();
    suspend();
    to_pty_.append(typed.substr(at + 1));
    return;
  }
  // The session init's group is not orphaned: the key goes in, and the job stops itself (a
  // TUI in raw mode) or is stopped by the pty. The relay looks for that stop (tick()). A job of
  // a shell inside is left to that shell.
  if (foreground != session_group_ && is_session_group(foreground, session_group_) &&
      holds_stop_key(typed, pty_.master())) {
    watched_group_ = foreground;
    watch_until_ = std::chrono::steady_clock::now() + kStopWatch;
  }
}

int Relay::tick_timeout_ms() const { return watched_group_ > 0 ? kStopWatchIntervalMs : -1; }

void Relay::tick() {
  if (watched_group_ <= 0) return;
  const pid_t group = watched_group_;
  // The watch ends when it times out, or when another group took the foreground (a shell
  // inside that suspended its own job takes the terminal back).
  if (std::chrono::steady_clock::now() >= watch_until_ || ::tcgetpgrp(pty_.master()) != group) {
    watched_group_ = -1;
    return;
  }
  if (!group_has_stopped_process(group)) return;
  watched_group_ = -1;
  drain_pty();
  suspend();
}

void Relay::drain_pty() {
  // What the job wrote before it stopped ("suspended", its terminal restored) reaches the
  // operator before cordon stops; bounded, as every read of the pty.
  for (int i = 0; i < 16 && pty_open_ && to_operator_.size() < kBufferBytes; ++i) {
    pollfd p{pty_.master(), POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) break;
    read_pty();
  }
}

void Relay::write_pty() {
  uint64_t ignored = 0;
  if (!write_some(pty_.master(), to_pty_, ignored)) to_pty_.clear();
}

void Relay::window_changed() { pty_.set_size(operator_.size()); }

bool Relay::session_group_in_foreground() const { return is_session_group(::tcgetpgrp(pty_.master()), session_group_); }

void Relay::signal_from_terminal(int sig) {
  if (sig == SIGTSTP && session_group_in_foreground()) {
    suspend();
    return;
  }
  ::ioctl(pty_.master(), TIOCSIG, sig);  // as the terminal's own signal (SI_KERNEL) to the foreground group
}

void Relay::suspend() {
  // SIGSTOP, not SIGTSTP: the group is orphaned (see read_operator), and only SIGSTOP stops it.
  const pid_t group = ::tcgetpgrp(pty_.master());
  if (group > 0) ::ioctl(pty_.master(), TIOCSIG, SIGSTOP);
  to_operator_ += terminal_reset_sequence(filter_.modes());
  flush_to_operator(500);
  operator_.give_back();
  // Stopped as the shell expects of a job; SIGSTOP, since the launcher holds SIGTSTP blocked.
  ::kill(::getpid(), SIGSTOP);
  // Continued (`fg`): the terminal again, its current size, and the sandbox's group on.
  operator_.claim();
  window_changed();
  if (group > 0) {
    ::kill(-group, SIGCONT);
    ::kill(-group, SIGWINCH);  // a TUI redraws what the suspension wiped
  }
}

void Relay::flush_to_operator(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!to_operator_.empty() && std::chrono::steady_clock::now() < deadline) {
    write_operator();
    if (to_operator_.empty()) break;
    pollfd p{operator_.fd(), POLLOUT, 0};
    ::poll(&p, 1, 20);
  }
  report_.output_cut = report_.output_cut || !to_operator_.empty();
  to_operator_.clear();
}

RelayReport Relay::finish() {
  // The sandbox is gone; what it wrote last is still in the pty. Bounded: a descendant that
  // somehow kept the slave open cannot hold the launcher here.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  while (pty_open_ && std::chrono::steady_clock::now() < deadline) {
    pollfd p{pty_.master(), POLLIN, 0};
    if (::poll(&p, 1, 20) > 0) read_pty();
    if (to_operator_.size() >= kBufferBytes) flush_to_operator(1000);
  }
  filter_.finish(to_operator_);
  to_operator_ += terminal_reset_sequence(filter_.modes());
  flush_to_operator(2000);
  operator_.give_back();
  keeper_->dismiss();
  report_.dropped = filter_.dropped();
  return report_;
}

}  // namespace cordon::terminal
