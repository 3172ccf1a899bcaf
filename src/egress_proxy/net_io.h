// Socket I/O with bounds: every wait has a timeout and also wakes on a stop fd (the
// connection's eventfd, readable for good once the session ends or its slot is reclaimed), so
// no connection outlives the session or holds on to a reclaimed slot.
// Sockets are non-blocking; sends use MSG_NOSIGNAL.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/unique_fd.h"

namespace cordon::egress {

enum class Wait { Ready, Timeout, Stopped, Error };

// Waits for `events` (POLLIN/POLLOUT) on `fd`, at most `timeout_ms` (-1: no limit).
Wait wait_for(int fd, short events, int timeout_ms, int stop_fd);

// Sends all of `data` before `timeout_ms` elapses; false on error, timeout or stop.
bool send_all(int fd, std::string_view data, int timeout_ms, int stop_fd);

struct HeadRead {
  enum class Status { Complete, TooLarge, Closed, Timeout, Stopped, Error };
  Status status = Status::Error;
  std::string buffer;  // the bytes read: the head, and any bytes the client sent after it
  size_t head_end = 0;
};

// Reads until a complete request head, at most `max_bytes` of head, within `timeout_ms`.
HeadRead read_head(int fd, size_t max_bytes, int timeout_ms, int stop_fd);

// getaddrinfo for IPv4 stream addresses only (IPv6 is out of scope). Host order, in the
// resolver's order; empty with *error set when the name does not resolve.
std::vector<uint32_t> resolve_ipv4(const std::string& name, std::string* error);

struct Connected {
  enum class Status { Ok, Failed, Timeout, Stopped };
  Status status = Status::Failed;
  UniqueFd fd;        // non-blocking, close-on-exec
  std::string error;  // for Failed
};

// Connects to exactly `address`:`port` (the address the policy checked).
Connected connect_ipv4(uint32_t host_order_address, uint16_t port, int timeout_ms, int stop_fd);

}  // namespace cordon::egress
