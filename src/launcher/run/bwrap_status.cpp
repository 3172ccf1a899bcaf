#include "launcher/run/bwrap_status.h"

#include <sstream>

#include "common/json_codec.h"

namespace cordon {

namespace {

// True when a complete line of the stream is a JSON object carrying `key`.
bool stream_has_key(const std::string& stream, const char* key) {
  std::istringstream lines(stream);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::optional<Json> status = parse_json(line, nullptr);
    if (status && status->is_object() && status->contains(key)) return true;
  }
  return false;
}

}  // namespace

bool bwrap_status_says_command_ran(const std::string& stream) { return stream_has_key(stream, "exit-code"); }

bool bwrap_status_says_sandbox_started(const std::string& stream) { return stream_has_key(stream, "child-pid"); }

}  // namespace cordon
