// One client connection, served start to end on its own thread: read the request head,
// decide, resolve, connect, relay. Its record is written exactly once: by its own thread when
// it ends, or by the server at session end for a thread still stuck (in getaddrinfo, which
// cannot be interrupted). Every wait also wakes on the connection's own eventfd, which the
// server sets when the session ends or when it reclaims the slot (reclaim.h).
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
#include "egress_proxy/reclaim.h"
#include "egress_proxy/relay.h"
#include "egress_proxy/request.h"

namespace cordon::egress {

// What every connection shares; lives as long as the server.
struct ServeContext {
  const Options& options;
  const EgressRules& rules;
  const AddressPolicy& policy;
  DecisionLog& log;
};

// The "ended" of a connection closed to free its slot.
inline constexpr const char* kReclaimedEnd = "reclaimed: idle while the proxy was full";

struct Target;

class Connection {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Connection(UniqueFd client);

  // False when its eventfd could not be made: it cannot be served (every wait needs it).
  bool ready() const { return wake_.valid(); }
  // Serves the connection and writes its record; returns when it is closed.
  void serve(const ServeContext& ctx);
  // Writes the record now with "ended": `ended` unless one was written already.
  void log_once(DecisionLog& log, const std::string& ended);
  bool finished() const { return finished_.load(); }
  int client_fd() const { return client_.get(); }
  // For a connection answered without being served (over the connection limit).
  void set_refusal(int status, const std::string& reason);

  // Wakes every wait of the connection for good: the session ends (or the slot is reclaimed).
  void wake();
  // Its phase and idle time, for choosing a slot to reclaim.
  SlotView slot_view(Clock::time_point now);
  // Closes the connection for a new client if it is still reclaimable (reclaim.h) and was not
  // reclaimed already: it answers or closes without waiting on its client, records
  // kReclaimedEnd and finishes. False when it moved on meanwhile.
  bool reclaim(Clock::duration grace);

 private:
  void handle(const ServeContext& ctx);
  SlotView view_locked(Clock::time_point now) const;  // phase_mutex_ held
  // Moves to `phase`; false (and no move) once the slot was reclaimed.
  bool enter(Phase phase);
  bool reclaimed();
  // The answer to a client still sending its head when its slot was reclaimed.
  void refuse_reclaimed_head(const ServeContext& ctx);
  // Answers the client and records the refusal or failure.
  void refuse(const ServeContext& ctx, int status, const std::string& reason, const std::string& body,
              const std::string& denied_code = {});
  // Connects to the checked address and relays; `rest` is what the client sent after the head.
  void relay_to(const ServeContext& ctx, const ProxyRequest& req, const Target& target, const std::string& rest);

  UniqueFd client_;
  UniqueFd wake_;  // an eventfd: readable once the session ends or the slot is reclaimed
  Clock::time_point start_;
  RelayCounters counters_;
  std::mutex mutex_;  // guards draft_
  Decision draft_;
  std::mutex phase_mutex_;  // guards phase_, since_, reclaimed_: a reclaim and a phase change never cross
  Phase phase_ = Phase::Head;
  Clock::time_point since_;  // when phase_ began
  bool reclaimed_ = false;
  std::atomic<bool> logged_{false}, finished_{false};
};

}  // namespace cordon::egress
