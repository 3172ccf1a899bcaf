#include "common/utc_time.h"

#include <ctime>

namespace cordon {
namespace {

std::string format_now(const char* format) {
  char buffer[32];
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  std::strftime(buffer, sizeof buffer, format, &tm);
  return buffer;
}

}  // namespace

std::string utc_now() { return format_now("%Y-%m-%dT%H:%M:%SZ"); }

std::string utc_stamp() { return format_now("%Y%m%dT%H%M%SZ"); }

}  // namespace cordon
