#include "egress_proxy/relay.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/unique_fd.h"

namespace cordon::egress {
namespace {

constexpr size_t kPipeBytes = 1 << 20;  // asked for; the kernel may grant less (pipe-max-size)
constexpr unsigned kSpliceFlags = SPLICE_F_MOVE | SPLICE_F_NONBLOCK;
constexpr int kRoundsPerWake = 8;

std::string socket_error(int fd) {
  int err = 0;
  socklen_t len = sizeof err;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
  return err ? std::strerror(err) : "connection error";
}

// One direction: from -> pipe -> to. `in_pipe` bytes are buffered in the pipe.
struct Direction {
  int from = -1, to = -1;
  UniqueFd pipe_r, pipe_w;
  size_t in_pipe = 0;
  size_t capacity = 65536;
  bool eof = false;   // `from` finished
  bool done = false;  // eof and drained, `to` shut down for writing
  std::atomic<uint64_t>* count = nullptr;

  bool open_pipe() {
    int p[2];
    if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) return false;
    pipe_r.reset(p[0]);
    pipe_w.reset(p[1]);
    int got = ::fcntl(p[1], F_SETPIPE_SZ, int(kPipeBytes));
    if (got > 0) capacity = size_t(got);
    return true;
  }
};

enum class Step { Progress, Blocked, Failed };

Step fail(std::string* error) {
  *error = std::strerror(errno);
  return Step::Failed;
}

// Moves what it can without blocking; Failed sets *error.
Step pump(Direction& d, std::string* error) {
  bool moved = false;
  if (!d.eof && d.in_pipe < d.capacity) {
    ssize_t n = ::splice(d.from, nullptr, d.pipe_w.get(), nullptr, d.capacity - d.in_pipe, kSpliceFlags);
    if (n > 0) d.in_pipe += size_t(n);
    else if (n == 0) d.eof = true;
    else if (errno != EAGAIN && errno != EINTR) return fail(error);
    moved = n >= 0;
  }
  if (d.in_pipe > 0) {
    ssize_t n = ::splice(d.pipe_r.get(), nullptr, d.to, nullptr, d.in_pipe, kSpliceFlags);
    if (n > 0) {
      d.in_pipe -= size_t(n);
      d.count->fetch_add(uint64_t(n), std::memory_order_relaxed);
      moved = true;
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
      return fail(error);
    }
  }
  if (d.eof && d.in_pipe == 0 && !d.done) {
    ::shutdown(d.to, SHUT_WR);  // half-close: the other direction may still be running
    d.done = true;
  }
  return moved ? Step::Progress : Step::Blocked;
}

short events_for(const Direction& d, int fd) {
  short ev = 0;
  if (d.from == fd && !d.eof && d.in_pipe < d.capacity) ev |= POLLIN;
  if (d.to == fd && d.in_pipe > 0) ev |= POLLOUT;
  return ev;
}

// "HTTP/1.x NNN": the status the origin answered; 0 when its first bytes are something else,
// -1 while it has sent nothing.
int peek_status(int origin_fd) {
  char head[16];
  ssize_t n = ::recv(origin_fd, head, sizeof head, MSG_PEEK | MSG_DONTWAIT);
  if (n <= 0) return -1;
  if (n < 12 || std::memcmp(head, "HTTP/1.", 7) != 0 || head[8] != ' ') return 0;
  int status = 0;
  for (int i = 9; i < 12; ++i) status = head[i] >= '0' && head[i] <= '9' ? status * 10 + head[i] - '0' : -1000;
  return status > 0 ? status : 0;
}

}  // namespace

const char* relay_end_text(RelayEnd end) {
  switch (end) {
    case RelayEnd::Closed: return "closed";
    case RelayEnd::Idle: return "idle timeout";
    case RelayEnd::Stopped: return "session ended";
    case RelayEnd::Error: return "error";
  }
  return "error";
}

RelayResult relay(int client_fd, int origin_fd, const RelayOptions& options, RelayCounters& counters) {
  RelayResult result;
  auto finish = [&result](RelayEnd end, std::string error = {}) {
    result.end = end;
    if (!error.empty()) result.error = std::move(error);
    return result;
  };
  Direction dirs[2];
  dirs[0].from = client_fd, dirs[0].to = origin_fd, dirs[0].count = &counters.up;
  dirs[1].from = origin_fd, dirs[1].to = client_fd, dirs[1].count = &counters.down;
  if (!dirs[0].open_pipe() || !dirs[1].open_pipe()) return finish(RelayEnd::Error, std::strerror(errno));
  bool want_status = options.peek_status;
  bool hung_up[2] = {false, false};  // a socket reported POLLHUP: poll it only when it has work
  while (!(dirs[0].done && dirs[1].done)) {
    for (auto& d : dirs) {
      if (want_status) {
        int status = peek_status(origin_fd);
        want_status = status < 0;
        result.origin_status = status < 0 ? 0 : status;
      }
      // Bounded: a fast stream one way cannot starve the other way or the stop fd.
      bool moved = false;
      for (int round = 0; round < kRoundsPerWake && !d.done; ++round) {
        if (pump(d, &result.error) != Step::Progress) break;
        moved = true;
      }
      if (!result.error.empty()) return finish(RelayEnd::Error);
      if (moved) counters.last_moved.store(std::chrono::steady_clock::now().time_since_epoch().count());
    }
    if (dirs[0].done && dirs[1].done) break;
    pollfd fds[3] = {{client_fd, short(events_for(dirs[0], client_fd) | events_for(dirs[1], client_fd)), 0},
                     {origin_fd, short(events_for(dirs[0], origin_fd) | events_for(dirs[1], origin_fd)), 0},
                     {options.stop_fd, POLLIN, 0}};
    for (int i = 0; i < 2; ++i)
      if (hung_up[i] && fds[i].events == 0) fds[i].fd = -1;
    int n = ::poll(fds, options.stop_fd >= 0 ? 3 : 2, options.idle_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return finish(RelayEnd::Error, std::strerror(errno));
    if (n == 0) return finish(RelayEnd::Idle);
    if (options.stop_fd >= 0 && (fds[2].revents & POLLIN)) return finish(RelayEnd::Stopped);
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents & POLLERR) return finish(RelayEnd::Error, socket_error(fds[i].fd));
      if (fds[i].revents & POLLHUP) hung_up[i] = true;
    }
  }
  return finish(RelayEnd::Closed);
}

}  // namespace cordon::egress
