#include "egress_proxy/net_io.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "egress_proxy/request.h"

namespace cordon::egress {
namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : int(left);
}

}  // namespace

Wait wait_for(int fd, short events, int timeout_ms, int stop_fd) {
  pollfd fds[2] = {{fd, events, 0}, {stop_fd, POLLIN, 0}};
  for (;;) {
    int n = ::poll(fds, stop_fd >= 0 ? 2 : 1, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Wait::Error;
    if (n == 0) return Wait::Timeout;
    if (stop_fd >= 0 && (fds[1].revents & POLLIN)) return Wait::Stopped;
    return Wait::Ready;  // POLLERR/POLLHUP too: the next call reports it
  }
}

bool send_all(int fd, std::string_view data, int timeout_ms, int stop_fd) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(size_t(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) return false;
    if (wait_for(fd, POLLOUT, remaining_ms(deadline), stop_fd) != Wait::Ready) return false;
  }
  return true;
}

HeadRead read_head(int fd, size_t max_bytes, int timeout_ms, int stop_fd) {
  HeadRead out;
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  auto done = [&out](HeadRead::Status status) {
    out.status = status;
    return std::move(out);
  };
  char chunk[4096];
  for (;;) {
    ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n > 0) {
      // Search only the new bytes (and 3 before them, for a terminator split across reads).
      size_t from = out.buffer.size() < 3 ? 0 : out.buffer.size() - 3;
      out.buffer.append(chunk, size_t(n));
      size_t end = find_head_end(std::string_view(out.buffer).substr(from));
      if (end != std::string_view::npos) end += from;
      if (end != std::string_view::npos && end <= max_bytes) {
        out.head_end = end;
        return done(HeadRead::Status::Complete);
      }
      if (end != std::string_view::npos || out.buffer.size() > max_bytes) return done(HeadRead::Status::TooLarge);
      continue;
    }
    if (n == 0) return done(HeadRead::Status::Closed);
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return done(HeadRead::Status::Error);
    Wait w = wait_for(fd, POLLIN, remaining_ms(deadline), stop_fd);
    if (w == Wait::Timeout) return done(HeadRead::Status::Timeout);
    if (w == Wait::Stopped) return done(HeadRead::Status::Stopped);
    if (w == Wait::Error) return done(HeadRead::Status::Error);
  }
}

std::vector<uint32_t> resolve_ipv4(const std::string& name, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  int rc = ::getaddrinfo(name.c_str(), nullptr, &hints, &list);
  std::vector<uint32_t> out;
  if (rc != 0) {
    *error = rc == EAI_SYSTEM ? std::strerror(errno) : gai_strerror(rc);
    return out;
  }
  for (addrinfo* a = list; a; a = a->ai_next)
    if (a->ai_family == AF_INET)
      out.push_back(ntohl(reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr.s_addr));
  ::freeaddrinfo(list);
  if (out.empty()) *error = "no IPv4 address";
  return out;
}

Connected connect_ipv4(uint32_t address, uint16_t port, int timeout_ms, int stop_fd) {
  Connected out;
  auto done = [&out](Connected::Status status, std::string error = {}) {
    out.status = status;
    out.error = std::move(error);
    return std::move(out);
  };
  out.fd.reset(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!out.fd.valid()) return done(Connected::Status::Failed, std::strerror(errno));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(address);
  if (::connect(out.fd.get(), reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0 && errno != EINPROGRESS)
    return done(Connected::Status::Failed, std::strerror(errno));
  Wait w = wait_for(out.fd.get(), POLLOUT, timeout_ms, stop_fd);
  if (w == Wait::Timeout) return done(Connected::Status::Timeout);
  if (w == Wait::Stopped) return done(Connected::Status::Stopped);
  int err = 0;
  socklen_t len = sizeof err;
  if (::getsockopt(out.fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (err != 0) return done(Connected::Status::Failed, std::strerror(err));
  int one = 1;
  ::setsockopt(out.fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return done(Connected::Status::Ok);
}

}  // namespace cordon::egress
