#include "egress_proxy/decision_log.h"

#include <unistd.h>

#include <cerrno>

#include "common/json_codec.h"

namespace cordon::egress {

std::string decision_line(const Decision& d) {
  Json doc = Json::object();
  doc["destination"] = bytes_json(d.destination);
  doc["method"] = bytes_json(d.method);
  doc["allowed"] = d.allowed;
  doc["reason"] = bytes_json(d.reason);
  if (!d.address.empty()) doc["address"] = d.address;
  doc["bytes_up"] = d.bytes_up;
  doc["bytes_down"] = d.bytes_down;
  doc["duration_ms"] = d.duration_ms;
  doc["status"] = d.status;
  if (!d.ended.empty()) doc["ended"] = bytes_json(d.ended);
  return dump_line(doc) + "\n";
}

void DecisionLog::write(const Decision& decision) {
  std::string line = decision_line(decision);
  std::lock_guard lock(mutex_);
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the log's reader is gone: the proxy keeps serving
    p += n;
    left -= size_t(n);
  }
}

}  // namespace cordon::egress
