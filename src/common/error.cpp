#include "common/error.h"

#include <cstring>

namespace cordon {

std::string errno_text(const std::string& context, int err) {
  return context + ": " + std::strerror(err);
}

}  // namespace cordon
