// The proxy's decision log: one JSON line per connection, written when it ends, on the fd
// the launcher passed (--log-fd). Each line goes out in one write(2) call, so lines from
// threads (and from other writers of an O_APPEND file) never interleave.
//   {"destination":"host:port","method":"CONNECT","allowed":true,"reason":"...",
//    "address":"a.b.c.d","bytes_up":N,"bytes_down":N,"duration_ms":N,"status":200,
//    "ended":"closed"}
// "address" only when the proxy connected; "ended" only when bytes were relayed or the
// session ended mid-connection ("closed", "idle timeout", "session ended", "error: ...").
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

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

class DecisionLog {
 public:
  explicit DecisionLog(int fd) : fd_(fd) {}
  void write(const Decision& decision);

 private:
  int fd_;
  std::mutex mutex_;  // a short write (a pipe near full) is completed before the next line
};

}  // namespace cordon::egress
