#include "egress_proxy/server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>
#include <vector>

#include "egress_proxy/responses.h"

namespace cordon::egress {
namespace {

// How long (in 1 ms polls: a stalled machine does not use it up) the accept loop waits for a
// reclaimed connection's thread. That thread wakes at once and closes without waiting on its
// client: this is only a bound, past which the newcomer gets the 503 after all.
constexpr int kReclaimWaitMs = 2000;

}  // namespace

Server::Server(const ServeContext& ctx, int listen_fd, int signal_fd)
    : ctx_(ctx), listen_fd_(listen_fd), signal_fd_(signal_fd) {}

Server::~Server() {
  for (auto& w : workers_)
    if (w.thread.joinable()) {
      if (w.connection->finished()) w.thread.join();
      else w.thread.detach();  // run() returned it as a straggler: the process _exits next
    }
}

void Server::reap() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (!it->connection->finished()) {
      ++it;
      continue;
    }
    it->thread.join();  // it has returned from serve(): this does not wait
    it = workers_.erase(it);
  }
}

void Server::turn_away(Connection& connection, const std::string& why) {
  std::string reply = http_response(503, "cordon egress proxy: " + why + "; retry later.\n");
  // Non-blocking and best effort: the accept loop never waits on a client.
  ssize_t sent = ::send(connection.client_fd(), reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  (void)sent;
  // Then drain what already arrived: a close with unread bytes would reset the connection.
  ::shutdown(connection.client_fd(), SHUT_WR);
  char sink[4096];
  for (int i = 0; i < 16 && ::recv(connection.client_fd(), sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
  }
  connection.set_refusal(503, why);
  connection.log_once(ctx_.log, "");
}

bool Server::reclaim_slot() {
  const auto grace = std::chrono::seconds(ctx_.options.reclaim_idle_seconds);
  for (int attempt = 0; attempt < 4; ++attempt) {  // the one chosen may have moved on meanwhile
    std::vector<SlotView> views;
    std::vector<Connection*> connections;
    auto now = std::chrono::steady_clock::now();
    for (auto& w : workers_) {
      views.push_back(w.connection->slot_view(now));
      connections.push_back(w.connection.get());
    }
    auto pick = pick_reclaim(views, grace);
    if (!pick) return false;
    Connection& victim = *connections[*pick];
    if (!victim.reclaim(grace)) continue;
    pollfd signal = {signal_fd_, POLLIN, 0};
    for (int waited = 0; waited < kReclaimWaitMs && !victim.finished(); ++waited)
      if (::poll(&signal, 1, 1) > 0) break;  // SIGTERM: the session ends, the newcomer gets the 503
    reap();
    return workers_.size() < size_t(ctx_.options.max_connections);
  }
  return false;
}

void Server::accept_ready() {
  for (int i = 0; i < 64; ++i) {  // bounded: the signal fd is checked between batches
    UniqueFd client(::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!client.valid()) return;  // EAGAIN, or a client that went away (ECONNABORTED)
    int one = 1;
    ::setsockopt(client.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    reap();
    auto connection = std::make_shared<Connection>(std::move(client));
    if (!connection->ready()) {
      turn_away(*connection, std::string("cannot create an eventfd: ") + std::strerror(errno));
      continue;
    }
    if (workers_.size() >= size_t(ctx_.options.max_connections) && !reclaim_slot()) {
      turn_away(*connection, "too many connections (at most " + std::to_string(ctx_.options.max_connections) +
                                 " at once, --max-connections) and none idle to reclaim");
      continue;
    }
    try {
      std::thread thread([connection, ctx = ctx_] { connection->serve(ctx); });
      workers_.push_back({std::move(connection), std::move(thread)});
    } catch (const std::system_error& e) {  // out of threads: this client only
      turn_away(*connection, std::string("cannot start a thread: ") + e.what());
    }
  }
}

size_t Server::run(int grace_ms) {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {signal_fd_, POLLIN, 0}};
    int n = ::poll(fds, 2, 1000);  // wakes each second to reap finished threads
    if (n < 0 && errno != EINTR) break;
    if (n > 0 && (fds[1].revents & POLLIN)) break;
    if (n > 0 && (fds[0].revents & POLLIN)) accept_ready();
    reap();
  }
  for (auto& w : workers_) w.connection->wake();  // every connection's polls wake, for good
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  while (!workers_.empty() && std::chrono::steady_clock::now() < deadline) {
    reap();
    ::poll(nullptr, 0, 10);
  }
  reap();
  for (auto& w : workers_) w.connection->log_once(ctx_.log, "session ended");
  return workers_.size();
}

}  // namespace cordon::egress
