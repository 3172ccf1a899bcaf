// The proxy's decision log: one JSON line per connection, written when it ends, on the fd
// the launcher passed (--log-fd). Each line goes out in one write(2) call, so lines from
// threads (and from other writers of an O_APPEND file) never interleave.
//   {"destination":"host:port","method":"CONNECT","allowed":true,"reason":"...",
//    "address":"a.b.c.d","bytes_up":N,"bytes_down":N,"duration_ms":N,"status":200,
//    "ended":"closed"}
// "address" only when the proxy connected; "ended" only when bytes were relayed or the
// session ended mid-connection ("closed", "idle timeout", "session ended", "error: ...").
//
// Bounded: the log is a memfd the launcher holds, and a sandbox flooding the proxy with
// requests decides how many decisions there are. Whole lines stop at `max_bytes`
// (common/decision_bounds.h kDecisionLogBytes by default); past it each decision is only
// counted, by destination, and finish() writes the counts as one last line:
//   {"overflow":{"allowed":N,"denied":N,"failed":N,
//    "destinations":[{"destination":"host:port","allowed":N,"denied":N,"failed":N}],
//    "destinations_dropped":N}}
// "denied" is a policy refusal (status 403), "failed" any other refusal or failure, as the
// launcher counts them (launcher/network/egress_decisions.h).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "common/decision_bounds.h"

namespace cordon::egress {

struct Decision {
  std::string destination;  // "host:port"; "" when no request was read
  std::string method;
  bool allowed = false;
  std::string reason;
  std::string address;  // the address connected to
  uint64_t bytes_up = 0, bytes_down = 0;
  long long duration_ms = 0;
  int status = 0;  // the HTTP status answered (the origin's, for a forwarded request); 0: none
  std::string ended;
};

std::string decision_line(const Decision& decision);  // with the trailing newline

struct DecisionCounts {
  long long allowed = 0, denied = 0, failed = 0;
};

class DecisionLog {
 public:
  explicit DecisionLog(int fd, size_t max_bytes = kDecisionLogBytes) : fd_(fd), max_bytes_(max_bytes) {}
  void write(const Decision& decision);
  // The counts of the decisions past the bound, as the last line; nothing when there were none.
  // Called once, when the proxy stops; later decisions are counted and never written.
  void finish();

 private:
  void count(const Decision& decision);  // under mutex_
  void write_all(const std::string& line);

  int fd_;
  size_t max_bytes_;
  size_t written_ = 0;
  bool finished_ = false;
  DecisionCounts overflow_;
  std::map<std::string, DecisionCounts> overflow_by_destination_;
  long long destinations_dropped_ = 0;  // decisions whose destination did not fit in the map
  std::mutex mutex_;                    // a short write (a pipe near full) is completed before the next line
};

// The overflow line finish() writes (with the trailing newline).
std::string overflow_line(const DecisionCounts& total, const std::map<std::string, DecisionCounts>& by_destination,
                          long long destinations_dropped);

}  // namespace cordon::egress
