#include "common/utc_time.h"

#include <ctime>

namespace cordon {
namespace {

std::string format_at(const char* format, std::time_t when) {
  char buffer[32];
  std::tm tm{};
  ::gmtime_r(&when, &tm);
  std::strftime(buffer, sizeof buffer, format, &tm);
  return buffer;
}

}  // namespace

std::string utc_now() { return format_at("%Y-%m-%dT%H:%M:%SZ", std::time(nullptr)); }

std::string utc_stamp() { return utc_stamp_at(std::time(nullptr)); }

std::string utc_stamp_at(std::time_t when) { return format_at("%Y%m%dT%H%M%SZ", when); }

}  // namespace cordon
