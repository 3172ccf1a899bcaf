// Copies bytes both ways between the client and the origin until both sides finished, one
// side failed, the connection sat idle too long, or the session ended (the stop fd).
// The bytes never enter user space: splice(2) moves them socket -> pipe -> socket, which is
// what keeps a tunnel near loopback speed (measured in bench/proxy_throughput.sh).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace cordon::egress {

struct RelayCounters {
  std::atomic<uint64_t> up{0};    // client -> origin
  std::atomic<uint64_t> down{0};  // origin -> client
  // When bytes last moved either way (steady_clock ticks; 0: never): how long a relay has been
  // idle, for the accept loop choosing a slot to reclaim.
  std::atomic<std::chrono::steady_clock::rep> last_moved{0};
};

enum class RelayEnd { Closed, Idle, Stopped, Error };
const char* relay_end_text(RelayEnd end);  // "closed", "idle timeout", "session ended", "error"

struct RelayOptions {
  int idle_ms = 300000;
  int stop_fd = -1;
  // Peek at the origin's first bytes for its status line ("HTTP/1.1 200 ..."): forwarded
  // requests log the origin's status.
  bool peek_status = false;
};

struct RelayResult {
  RelayEnd end = RelayEnd::Closed;
  int origin_status = 0;  // with peek_status, when the origin answered a status line
  std::string error;      // for RelayEnd::Error
};

// Both fds non-blocking sockets; the counters are updated as bytes move (the session-end
// record reads them from another thread).
RelayResult relay(int client_fd, int origin_fd, const RelayOptions& options, RelayCounters& counters);

}  // namespace cordon::egress
