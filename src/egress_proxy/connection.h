// One client connection, served start to end on its own thread: read the request head,
// decide, resolve, connect, relay. Its record is written exactly once: by its own thread when
// it ends, or by the server at session end for a thread still stuck (in getaddrinfo, which
// cannot be interrupted).
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

#include "common/egress_rules.h"
#include "common/unique_fd.h"
#include "egress_proxy/address_policy.h"
#include "egress_proxy/decision_log.h"
#include "egress_proxy/options.h"
#include "egress_proxy/relay.h"
#include "egress_proxy/request.h"

namespace cordon::egress {

// What every connection shares; lives as long as the server.
struct ServeContext {
  const Options& options;
  const EgressRules& rules;
  const AddressPolicy& policy;
  DecisionLog& log;
  int stop_fd = -1;  // an eventfd, readable once the session ends
};

struct Target;

class Connection {
 public:
  explicit Connection(UniqueFd client);

  // Serves the connection and writes its record; returns when it is closed.
  void serve(const ServeContext& ctx);
  // Writes the record now with "ended": `ended` unless one was written already.
  void log_once(DecisionLog& log, const std::string& ended);
  bool finished() const { return finished_.load(); }
  int client_fd() const { return client_.get(); }
  // For a connection answered without being served (over the connection limit).
  void set_refusal(int status, const std::string& reason);

 private:
  void handle(const ServeContext& ctx);
  // Answers the client and records the refusal or failure.
  void refuse(const ServeContext& ctx, int status, const std::string& reason, const std::string& body,
              const std::string& denied_code = {});
  // Connects to the checked address and relays; `rest` is what the client sent after the head.
  void relay_to(const ServeContext& ctx, const ProxyRequest& req, const Target& target, const std::string& rest);

  UniqueFd client_;
  std::chrono::steady_clock::time_point start_;
  RelayCounters counters_;
  std::mutex mutex_;  // guards draft_
  Decision draft_;
  std::atomic<bool> logged_{false}, finished_{false};
};

}  // namespace cordon::egress
