// The private terminal's relay against a direct terminal. Each side is started the same way, as
// an operator's shell starts a command: the leader of a new session whose controlling terminal
// (and stdin, stdout, stderr) is the slave of a fresh 24x80 pty, the bench holding the master
// as the operator's terminal would.
//
//   cordon_bench_terminal throughput RUNS FILE RELAY.json DIRECT.json   interleaved pairs R D
//       R D ... of a command that writes FILE to its terminal, each timed from the spawn to the
//       end of its output (the master reads EIO after the exit, or the last byte when nothing
//       more arrives for 200 ms after it); prints
//       "RELAY_MS DIRECT_MS RELAY_MBPS DIRECT_MBPS RATIO" (medians; MB/s is the bytes read from
//       the master over the median time, RATIO = RELAY_MBPS / DIRECT_MBPS)
//   cordon_bench_terminal latency KEYS RELAY.json DIRECT.json   sessions R D R D of a command
//       that puts its terminal raw without echo, prints READY and echoes what it reads; KEYS/2
//       keystrokes in each (1 ms apart: typed keys find the relay idle), each timed from its
//       write to the master until it is read back; prints
//       "RELAY_US_MEDIAN RELAY_US_P90 DIRECT_US_MEDIAN DIRECT_US_P90 ADDED_US" (ADDED = the
//       relay's median minus the direct one); a session ends with SIGTERM to its leader
//
// A side is a JSON object as cordon_bench_pairs reads it, {"argv": [...], "cwd": "DIR"} ("fds"
// is not used here). Every wait is bounded; a side that fails, or a bound that runs out, stops
// the bench (exit 1) with every child it started killed and reaped.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr auto kRunLimit = std::chrono::seconds(120);  // one throughput run
constexpr auto kQuietAfterExit = milliseconds(200);
constexpr auto kReadyLimit = std::chrono::seconds(10);
constexpr auto kEchoLimit = std::chrono::seconds(1);
constexpr auto kEndLimit = std::chrono::seconds(10);
constexpr auto kKeyGap = milliseconds(1);

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  }

 private:
  int fd_;
};

struct Side {
  std::vector<std::string> argv;
  std::string cwd;
};

Side load_side(const char* path) {
  std::ifstream in(path);
  if (!in) throw Failure(std::string("cannot read ") + path);
  nlohmann::json doc = nlohmann::json::parse(in);
  Side side;
  for (const auto& a : doc.at("argv")) side.argv.push_back(a.get<std::string>());
  side.cwd = doc.value("cwd", ".");
  if (side.argv.empty()) throw Failure(std::string(path) + ": empty argv");
  return side;
}

double ms_since(Clock::time_point from, Clock::time_point to = Clock::now()) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

int poll_timeout(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1000));
}

// In the forked child: only async-signal-safe calls, then the side's command.
[[noreturn]] void exec_in_child(int slave, const char* cwd, char* const* argv) {
  // A slave at 0-2 would keep its close-on-exec flag through dup2 onto itself.
  const int tty = slave < 3 ? ::fcntl(slave, F_DUPFD, 3) : slave;
  if (tty < 0 || ::setsid() < 0 || ::ioctl(tty, TIOCSCTTY, 0) != 0) ::_exit(126);
  for (int fd = 0; fd < 3; ++fd)
    if (::dup2(tty, fd) < 0) ::_exit(126);
  if (::chdir(cwd) != 0) ::_exit(126);
  ::execv(argv[0], argv);
  ::_exit(127);
}

// One side's run: the child leading its session on a fresh pty, and the master. The child is
// always reaped: by wait_exit(), or killed and reaped when the session goes.
class Session {
 public:
  explicit Session(const Side& side) {
    std::vector<char*> argv;
    for (const auto& a : side.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int master = -1, slave = -1;
    winsize size{24, 80, 0, 0};
    if (::openpty(&master, &slave, nullptr, nullptr, &size) != 0) throw Failure(errno_text("openpty"));
    master_ = Fd(master);
    Fd slave_fd(slave);
    ::fcntl(master, F_SETFD, FD_CLOEXEC);
    ::fcntl(slave, F_SETFD, FD_CLOEXEC);
    ::fcntl(master, F_SETFL, ::fcntl(master, F_GETFL) | O_NONBLOCK);
    start_ = Clock::now();
    pid_ = ::fork();
    if (pid_ < 0) throw Failure(errno_text("fork"));
    if (pid_ == 0) exec_in_child(slave, side.cwd.c_str(), argv.data());
    // Only the session holds the slave now: the master reads EIO once it lets go.
    slave_fd.reset();
    pidfd_ = Fd(static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0)));
    if (pidfd_.get() < 0) {
      const std::string why = errno_text("pidfd_open");
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      throw Failure(why);
    }
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    if (reaped()) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }

  int master() const { return master_.get(); }
  int pidfd() const { return reaped() ? -1 : pidfd_.get(); }
  pid_t pid() const { return pid_; }
  Clock::time_point start() const { return start_; }
  bool reaped() const { return pid_ < 0; }
  int status() const { return status_; }
  // After the pidfd polled readable.
  void reap() {
    if (::waitpid(pid_, &status_, 0) != pid_) throw Failure(errno_text("waitpid"));
    pid_ = -1;
  }

 private:
  Fd master_, pidfd_;
  pid_t pid_ = -1;
  int status_ = 0;
  Clock::time_point start_;
};

// Reads what the master has now into `out` (when given), counting it; false once it reads EIO
// or end of file (every slave closed).
bool read_master(int master, uint64_t& bytes, std::string* out = nullptr) {
  static char buffer[64 * 1024];
  for (;;) {
    ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n > 0) {
      bytes += static_cast<uint64_t>(n);
      if (out) out->append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    if (n < 0 && errno != EIO) throw Failure(errno_text("reading the pty master"));
    return false;
  }
}

struct Output {
  uint64_t bytes = 0;
  double ms = 0;  // from the spawn to the end of the output
};

// Reads the master until the session is over: the child reaped and the master at EIO, or
// nothing more for 200 ms after the exit (a descendant still holding the slave).
Output drain(Session& s, Clock::time_point deadline) {
  Output out;
  bool open = true;
  Clock::time_point exited, last = s.start();
  for (;;) {
    if (Clock::now() > deadline) throw Failure("a run took longer than its bound");
    const auto quiet_until = std::max(exited, last) + kQuietAfterExit;
    if (s.reaped() && (!open || Clock::now() >= quiet_until)) break;
    pollfd fds[2] = {{open ? s.master() : -1, POLLIN, 0}, {s.pidfd(), POLLIN, 0}};
    ::poll(fds, 2, poll_timeout(s.reaped() ? std::min(quiet_until, deadline) : deadline));
    if (fds[1].revents) s.reap(), exited = Clock::now();
    if (!fds[0].revents) continue;
    const uint64_t before = out.bytes;
    open = read_master(s.master(), out.bytes);
    if (out.bytes != before) last = Clock::now();
    if (!open) last = std::max(last, Clock::now());
  }
  out.ms = ms_since(s.start(), std::max(exited, last));
  return out;
}

Output throughput_run(const Side& side) {
  Session s(side);
  Output out = drain(s, s.start() + kRunLimit);
  if (!WIFEXITED(s.status()) || WEXITSTATUS(s.status()) != 0)
    throw Failure(side.argv[0] + " did not exit 0 (wait status " + std::to_string(s.status()) + ")");
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double p90(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() * 9 / 10];
}

int throughput(int runs, const char* file, const Side& relay, const Side& direct) {
  const auto file_bytes = std::filesystem::file_size(file);
  // Warm-up: the file in the page cache, the launcher's binaries too.
  throughput_run(relay);
  throughput_run(direct);
  std::vector<double> rt, dt, rb, db;
  for (int i = 0; i < runs; ++i) {
    Output r = throughput_run(relay), d = throughput_run(direct);
    rt.push_back(r.ms), rb.push_back(static_cast<double>(r.bytes));
    dt.push_back(d.ms), db.push_back(static_cast<double>(d.bytes));
    if (r.bytes < file_bytes || d.bytes < file_bytes)
      throw Failure("a side's terminal showed less than the file (relay " + std::to_string(r.bytes) + ", direct " +
                    std::to_string(d.bytes) + " of " + std::to_string(file_bytes) + " bytes)");
  }
  if (median(rb) != median(db))
    std::fprintf(stderr, "cordon_bench_terminal: relay showed %.0f bytes, direct %.0f\n", median(rb), median(db));
  const double r_mbps = median(rb) / 1e6 / (median(rt) / 1e3), d_mbps = median(db) / 1e6 / (median(dt) / 1e3);
  std::printf("%.1f %.1f %.1f %.1f %.3f\n", median(rt), median(dt), r_mbps, d_mbps, r_mbps / d_mbps);
  return 0;
}

// Reads the master into `seen` until `done` says so; false when `deadline` passes first.
template <typename Done>
bool read_until(Session& s, std::string& seen, Clock::time_point deadline, Done done) {
  uint64_t ignored = 0;
  while (!done(seen)) {
    if (Clock::now() >= deadline) return false;
    pollfd p{s.master(), POLLIN, 0};
    if (::poll(&p, 1, poll_timeout(deadline)) <= 0) continue;
    if (!read_master(s.master(), ignored, &seen)) throw Failure("the session's terminal closed: " + seen);
  }
  return true;
}

void wait_ready(Session& s) {
  std::string seen;
  auto ready = [](const std::string& text) { return text.find("READY") != std::string::npos; };
  if (!read_until(s, seen, Clock::now() + kReadyLimit, ready))
    throw Failure("no READY within 10 s; the terminal showed: " + seen);
  // Whatever follows READY (its line end, a notice from the launcher) is not an echo: read
  // until 50 ms pass without output (at most 1 s).
  const auto deadline = Clock::now() + std::chrono::seconds(1);
  uint64_t ignored = 0;
  pollfd p{s.master(), POLLIN, 0};
  while (Clock::now() < deadline && ::poll(&p, 1, 50) > 0)
    if (!read_master(s.master(), ignored)) throw Failure("the session's terminal closed after READY");
}

double round_trip(Session& s, char key) {
  std::string seen;
  const auto start = Clock::now();
  if (::write(s.master(), &key, 1) != 1) throw Failure(errno_text("writing a keystroke to the pty master"));
  auto echoed = [key](const std::string& text) { return text.find(key) != std::string::npos; };
  if (!read_until(s, seen, start + kEchoLimit, echoed))
    throw Failure(std::string("keystroke '") + key + "' not echoed within 1 s");
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// SIGTERM to the session's leader (cordon forwards it to the sandbox), the master drained
// meanwhile; SIGKILL after 10 s.
void end_session(Session& s) {
  ::kill(s.pid(), SIGTERM);
  const auto deadline = Clock::now() + kEndLimit;
  uint64_t ignored = 0;
  bool open = true;
  while (!s.reaped() && Clock::now() < deadline) {
    pollfd fds[2] = {{open ? s.master() : -1, POLLIN, 0}, {s.pidfd(), POLLIN, 0}};
    ::poll(fds, 2, poll_timeout(deadline));
    if (fds[0].revents) open = read_master(s.master(), ignored);
    if (fds[1].revents) s.reap();
  }
  if (!s.reaped()) std::fprintf(stderr, "cordon_bench_terminal: a session outlived SIGTERM by 10 s: killed\n");
}

void latency_session(const Side& side, int keys, std::vector<double>& us) {
  Session s(side);
  wait_ready(s);
  for (int i = 0; i < keys; ++i) {
    us.push_back(round_trip(s, static_cast<char>('a' + i % 26)));
    std::this_thread::sleep_for(kKeyGap);
  }
  end_session(s);
}

int latency(int keys, const Side& relay, const Side& direct) {
  std::vector<double> r, d;
  for (int i = 0; i < 2; ++i) {
    latency_session(relay, keys / 2, r);
    latency_session(direct, keys / 2, d);
  }
  std::printf("%.1f %.1f %.1f %.1f %+.1f\n", median(r), p90(r), median(d), p90(d), median(r) - median(d));
  return 0;
}

int run(int argc, char** argv) {
  const std::string usage =
      "usage: cordon_bench_terminal throughput RUNS FILE RELAY.json DIRECT.json | latency KEYS RELAY.json DIRECT.json";
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "throughput" && argc == 6 && std::atoi(argv[2]) > 0)
    return throughput(std::atoi(argv[2]), argv[3], load_side(argv[4]), load_side(argv[5]));
  if (mode == "latency" && argc == 5 && std::atoi(argv[2]) >= 2)
    return latency(std::atoi(argv[2]), load_side(argv[3]), load_side(argv[4]));
  throw Failure(usage);
}

}  // namespace

int main(int argc, char** argv) {
  // A run that fails still unwinds, so every session's child is killed and reaped.
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cordon_bench_terminal: %s\n", e.what());
    return 1;
  }
}
