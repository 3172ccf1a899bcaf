#include "launcher/run/bwrap_status.h"

#include <sstream>

#include "common/json_codec.h"

namespace cordon {

bool bwrap_status_says_command_ran(const std::string& stream) {
  std::istringstream lines(stream);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::optional<Json> status = parse_json(line, nullptr);
    if (status && status->is_object() && status->contains("exit-code")) return true;
  }
  return false;
}

}  // namespace cordon
