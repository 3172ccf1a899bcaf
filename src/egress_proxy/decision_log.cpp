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

std::string overflow_line(const DecisionCounts& total, const std::map<std::string, DecisionCounts>& by_destination,
                          long long destinations_dropped) {
  Json destinations = Json::array();
  for (const auto& [destination, c] : by_destination)
    destinations.push_back(
        {{"destination", bytes_json(destination)}, {"allowed", c.allowed}, {"denied", c.denied}, {"failed", c.failed}});
  Json overflow = {{"allowed", total.allowed},
                   {"denied", total.denied},
                   {"failed", total.failed},
                   {"destinations", destinations},
                   {"destinations_dropped", destinations_dropped}};
  return dump_line(Json{{"overflow", overflow}}) + "\n";
}

void DecisionLog::write_all(const std::string& line) {
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

void DecisionLog::count(const Decision& d) {
  DecisionCounts* by = nullptr;
  std::string destination = d.destination.empty() ? "(none)" : d.destination;
  if (destination.size() > kSummaryDestinationBytes)
    destination = destination.substr(0, kSummaryDestinationBytes) + "...";
  if (auto it = overflow_by_destination_.find(destination); it != overflow_by_destination_.end()) by = &it->second;
  else if (overflow_by_destination_.size() < kSummaryDestinations) by = &overflow_by_destination_[destination];
  else ++destinations_dropped_;
  long long DecisionCounts::*which = d.allowed         ? &DecisionCounts::allowed
                                     : d.status == 403 ? &DecisionCounts::denied
                                                       : &DecisionCounts::failed;
  ++(overflow_.*which);
  if (by != nullptr) ++(by->*which);
}

void DecisionLog::write(const Decision& decision) {
  std::string line = decision_line(decision);
  std::lock_guard lock(mutex_);
  // Once one decision is counted, every later one is too: the lines stay the first decisions.
  const bool counting = finished_ || overflow_.allowed + overflow_.denied + overflow_.failed > 0;
  if (counting || written_ + line.size() > max_bytes_) return count(decision);
  written_ += line.size();
  write_all(line);
}

void DecisionLog::finish() {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (overflow_.allowed + overflow_.denied + overflow_.failed == 0) return;
  write_all(overflow_line(overflow_, overflow_by_destination_, destinations_dropped_));
}

}  // namespace cordon::egress
