// The accept loop. One thread per connection: a connection blocked in getaddrinfo, a slow
// origin or a slowloris client only holds its own thread, and the per-connection code stays
// straight-line. Threads are bounded by --max-connections. A client arriving when every slot
// is taken gets the slot of the connection idle the longest (reclaim.h); only when none may be
// reclaimed does the accept loop answer 503.
#pragma once

#include <list>
#include <memory>
#include <string>
#include <thread>

#include "common/unique_fd.h"
#include "egress_proxy/connection.h"

namespace cordon::egress {

class Server {
 public:
  // `listen_fd`: the inherited listening socket; `signal_fd`: a signalfd for SIGTERM/SIGINT.
  Server(const ServeContext& ctx, int listen_fd, int signal_fd);
  ~Server();  // joins the threads that finished; see run()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Serves until a signal arrives, then ends the session: stops accepting, wakes every
  // connection (each records "ended": "session ended"), waits up to `grace_ms` for them, and
  // records the stragglers itself. Returns how many threads were still running: the caller
  // must then leave with _exit, as those threads cannot be joined.
  size_t run(int grace_ms = 700);

 private:
  struct Worker {
    std::shared_ptr<Connection> connection;
    std::thread thread;
  };
  void accept_ready();
  void reap();
  // Every slot taken: closes the reclaimable connection idle the longest and waits (bounded) for
  // its thread. True when a slot is free.
  bool reclaim_slot();
  // Answers 503 without serving (over the limit with nothing to reclaim, or no thread or eventfd
  // to serve it) and records it.
  void turn_away(Connection& connection, const std::string& why);

  ServeContext ctx_;
  int listen_fd_, signal_fd_;
  std::list<Worker> workers_;
};

}  // namespace cordon::egress
