#include "egress_proxy/connection.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <variant>

#include "common/ipv4.h"
#include "egress_proxy/net_io.h"
#include "egress_proxy/request.h"
#include "egress_proxy/responses.h"

namespace cordon::egress {

// Where an allowed request goes: the one address checked, nothing else.
struct Target {
  uint32_t address = 0;
  std::string reason;  // "allowed by rule ..."
};

namespace {

constexpr int kReplyTimeoutMs = 5000;  // for our own short answers to a client
constexpr int kLingerMs = 500;

struct Refusal {
  int status = 403;
  std::string reason, body, code;
};

Refusal from_denial(const std::string& destination, const Denial& denial) {
  return {403, denial.why, denial_body(destination, denial), denial.code};
}

Refusal verdict_refusal(const EgressVerdict& v, const std::string& destination) {
  if (v.reason == EgressVerdict::Reason::RawIpNotAllowed) return from_denial(destination, deny_raw_ip(destination));
  if (v.reason == EgressVerdict::Reason::DeniedByRule)
    return from_denial(destination, deny_by_rule(destination, v.rule->text));
  return from_denial(destination, deny_not_allowed(destination));
}

// The first address of `req` the rules and the address policy accept.
std::variant<Target, Refusal> choose_target(const ServeContext& ctx, const ProxyRequest& req) {
  const std::string destination = req.destination();
  EgressVerdict verdict = ctx.rules.decide(req.host, req.port);
  if (!verdict.allowed() && !ctx.options.test_allow_all) return verdict_refusal(verdict, destination);
  std::vector<uint32_t> addresses;
  if (auto literal = raw_ipv4_host(req.host)) {
    addresses.push_back(*literal);
  } else {
    std::string error;
    addresses = resolve_ipv4(req.host, &error);
    if (addresses.empty())
      return Refusal{502, "cannot resolve " + req.host + ": " + error,
                     "cordon egress proxy: cannot resolve " + req.host + " (" + error + ").\n", ""};
  }
  std::optional<Refusal> first_refusal;
  if (ctx.options.test_allow_all) return Target{addresses.front(), "TEST BUILD: --test-allow-all"};
  for (uint32_t address : addresses) {
    if (const EgressRule* rule = ctx.rules.denying_address(address, req.port)) {
      if (!first_refusal) first_refusal = from_denial(destination, deny_by_rule(destination, rule->text));
    } else if (auto range = ctx.policy.refusing_range(address, req.port)) {
      if (!first_refusal)
        first_refusal = from_denial(destination,
                                    deny_refused_address(req.host, ipv4_to_string(address), range->str(), req.port));
    } else {
      return Target{address, "allowed by rule \"" + verdict.rule->text + "\""};
    }
  }
  return *first_refusal;
}

// Closing with unread request bytes would reset the connection and could destroy our answer
// before the client reads it: half-close, then discard what the client still sends (bounded).
void linger_close(int fd, int stop_fd) {
  ::shutdown(fd, SHUT_WR);
  char sink[4096];
  for (int i = 0; i < 16; ++i) {
    ssize_t n = ::recv(fd, sink, sizeof sink, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return;
    if (n < 0 && wait_for(fd, POLLIN, kLingerMs, stop_fd) != Wait::Ready) return;
  }
}

}  // namespace

Connection::Connection(UniqueFd client)
    : client_(std::move(client)),
      wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      start_(Clock::now()),
      since_(start_) {}

void Connection::wake() {
  uint64_t one = 1;
  ssize_t n = ::write(wake_.get(), &one, sizeof one);  // never read: it stays readable
  (void)n;
}

SlotView Connection::view_locked(Clock::time_point now) const {
  if (reclaimed_) return {Phase::Done, {}};  // leaving already: never chosen twice
  Clock::time_point last = since_;
  if (phase_ == Phase::Relaying) last = std::max(last, Clock::time_point(Clock::duration(counters_.last_moved.load())));
  return {phase_, now - last};
}

SlotView Connection::slot_view(Clock::time_point now) {
  std::lock_guard lock(phase_mutex_);
  return view_locked(now);
}

bool Connection::reclaim(Clock::duration grace) {
  std::lock_guard lock(phase_mutex_);
  if (reclaimed_ || !reclaimable(view_locked(Clock::now()), grace)) return false;
  reclaimed_ = true;
  wake();
  return true;
}

bool Connection::enter(Phase phase) {
  std::lock_guard lock(phase_mutex_);
  if (reclaimed_) return false;
  phase_ = phase;
  since_ = Clock::now();
  return true;
}

bool Connection::reclaimed() {
  std::lock_guard lock(phase_mutex_);
  return reclaimed_;
}

void Connection::serve(const ServeContext& ctx) {
  try {
    handle(ctx);
  } catch (const std::exception& e) {  // bad_alloc, or a bug: this connection only
    {
      std::lock_guard lock(mutex_);
      draft_.reason = std::string("internal error: ") + e.what();
    }
    log_once(ctx.log, "error");
  }
  enter(Phase::Done);
  client_.reset();
  finished_ = true;
}

void Connection::log_once(DecisionLog& log, const std::string& ended) {
  if (logged_.exchange(true)) return;
  Decision d;
  {
    std::lock_guard lock(mutex_);
    d = draft_;
  }
  d.bytes_up = counters_.up.load();
  d.bytes_down = counters_.down.load();
  d.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count();
  if (!ended.empty()) d.ended = ended;
  if (d.reason.empty()) d.reason = "ended before a decision";  // e.g. stuck in getaddrinfo at session end
  log.write(d);
}

void Connection::set_refusal(int status, const std::string& reason) {
  std::lock_guard lock(mutex_);
  draft_.allowed = false;
  draft_.status = status;
  draft_.reason = reason;
}

void Connection::refuse(const ServeContext& ctx, int status, const std::string& reason, const std::string& body,
                        const std::string& denied_code) {
  set_refusal(status, reason);
  send_all(client_.get(), http_response(status, body, denied_code), kReplyTimeoutMs, wake_.get());
  enter(Phase::Answering);  // the lingering below holds a slot for nothing: reclaimable
  linger_close(client_.get(), wake_.get());
  log_once(ctx.log, reclaimed() ? kReclaimedEnd : "");
}

void Connection::refuse_reclaimed_head(const ServeContext& ctx) {
  const std::string limit = std::to_string(ctx.options.max_connections);
  refuse(ctx, 408, "no complete request head when its slot was reclaimed",
         "cordon egress proxy: no complete request head yet, and every connection slot (" + limit +
             ", --max-connections) was taken: this connection was reclaimed for another; retry.\n");
}

void Connection::handle(const ServeContext& ctx) {
  const Options& o = ctx.options;
  HeadRead head = read_head(client_.get(), o.max_header_bytes, o.header_timeout_seconds * 1000, wake_.get());
  switch (head.status) {
    case HeadRead::Status::Complete: break;
    case HeadRead::Status::TooLarge: {
      std::string why = "request head larger than " + std::to_string(o.max_header_bytes) + " bytes";
      return refuse(ctx, 431, why, "cordon egress proxy: " + why + ".\n");
    }
    case HeadRead::Status::Timeout: {
      std::string why = "no complete request head within " + std::to_string(o.header_timeout_seconds) + " s";
      return refuse(ctx, 408, why, "cordon egress proxy: " + why + ".\n");
    }
    case HeadRead::Status::Stopped: {
      if (reclaimed()) return refuse_reclaimed_head(ctx);
      std::lock_guard lock(mutex_);
      draft_.reason = "the session ended before a complete request";
      break;
    }
    case HeadRead::Status::Closed:
    case HeadRead::Status::Error: {
      std::lock_guard lock(mutex_);
      draft_.reason = "client closed before a complete request";
      break;
    }
  }
  if (head.status == HeadRead::Status::Stopped) return log_once(ctx.log, "session ended");
  if (head.status != HeadRead::Status::Complete) return log_once(ctx.log, "");
  if (!enter(Phase::Deciding)) return refuse_reclaimed_head(ctx);  // reclaimed as the head completed
  auto parsed = parse_request(std::string_view(head.buffer).substr(0, head.head_end));
  if (auto* e = std::get_if<RequestError>(&parsed))
    return refuse(ctx, e->status, e->message, "cordon egress proxy: " + e->message + ".\n", e->code);
  auto& req = std::get<ProxyRequest>(parsed);
  {
    std::lock_guard lock(mutex_);
    draft_.destination = req.destination();
    draft_.method = req.method;
  }
  auto chosen = choose_target(ctx, req);
  if (auto* r = std::get_if<Refusal>(&chosen)) return refuse(ctx, r->status, r->reason, r->body, r->code);
  std::string rest = head.buffer.substr(head.head_end);
  relay_to(ctx, req, std::get<Target>(chosen), rest);
}

void Connection::relay_to(const ServeContext& ctx, const ProxyRequest& req, const Target& target,
                          const std::string& rest) {
  const std::string where = req.destination() + " (" + ipv4_to_string(target.address) + ")";
  Connected origin = connect_ipv4(target.address, req.port, ctx.options.connect_timeout_seconds * 1000, wake_.get());
  if (origin.status == Connected::Status::Stopped) return log_once(ctx.log, "session ended");  // never reclaimed
  if (origin.status == Connected::Status::Timeout)
    return refuse(ctx, 504, "connect to " + where + " timed out",
                  "cordon egress proxy: connecting to " + where + " timed out.\n");
  if (origin.status == Connected::Status::Failed)
    return refuse(ctx, 502, "connect to " + where + " failed: " + origin.error,
                  "cordon egress proxy: cannot connect to " + where + ": " + origin.error + ".\n");
  bool tunnel = req.form == ProxyRequest::Form::Connect;
  {
    std::lock_guard lock(mutex_);
    draft_.allowed = true;
    draft_.reason = target.reason;
    draft_.address = ipv4_to_string(target.address);
    draft_.status = tunnel ? 200 : 0;
  }
  const int timeout_ms = ctx.options.idle_seconds * 1000;
  enter(Phase::Relaying);  // idle from here on (no byte either way) counts towards a reclaim
  if (tunnel && !send_all(client_.get(), "HTTP/1.1 200 Connection established\r\n\r\n", timeout_ms, wake_.get()))
    return log_once(ctx.log, reclaimed() ? kReclaimedEnd : "closed");
  std::string first = tunnel ? rest : req.forward_head + rest;
  if (!send_all(origin.fd.get(), first, timeout_ms, wake_.get()))
    return log_once(ctx.log, reclaimed() ? kReclaimedEnd : "error: sending request");
  counters_.up += first.size();
  RelayResult result = relay(client_.get(), origin.fd.get(), {timeout_ms, wake_.get(), !tunnel}, counters_);
  if (!tunnel) {
    std::lock_guard lock(mutex_);
    draft_.status = result.origin_status;
  }
  if (result.end == RelayEnd::Stopped && reclaimed()) {
    // Closed for a new client: a FIN both ways (not a reset), without waiting on either side.
    linger_close(client_.get(), wake_.get());
    linger_close(origin.fd.get(), wake_.get());
    return log_once(ctx.log, kReclaimedEnd);
  }
  std::string ended = relay_end_text(result.end);
  log_once(ctx.log, result.error.empty() ? ended : ended + ": " + result.error);
}

}  // namespace cordon::egress
