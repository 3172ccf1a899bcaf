#include "common/error.h"

#include <cstring>

namespace cordon {

std::string errno_text(const std::string& context, int err) { return context + ": " + std::strerror(err); }

std::string errno_name(int err) {
  if (err == 0) return "success";
  const char* name = ::strerrorname_np(err);
  return name ? name : "errno " + std::to_string(err);
}

}  // namespace cordon
