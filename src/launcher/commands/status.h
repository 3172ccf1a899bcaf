// `cordon status`: what is enforced, in a few lines, inside or outside a sandbox.
// A weaker setup never borrows the strong label: with the jail off the first line says so.
#pragma once

#include <string>

#include "common/intent.h"
#include "launcher/inputs/config.h"
#include "launcher/plan/session_options.h"

namespace cordon {

// `status --json`: "format" and major "version" (docs/schemas.md).
inline constexpr const char* kStatusFormat = "cordon-status";
inline constexpr int kStatusVersion = 1;

struct StatusView {
  bool inside = false;      // read from /run/cordon/session inside a sandbox
  SessionIntent intent;     // what is (or would be) enforced
  std::string last_egress;  // outside: the latest allowlist session's proxy counts ("" = none)
};

std::string render_status(const StatusView& view);
std::string render_status_json(const StatusView& view);

// Inside a sandbox: prints the launcher's record of intent (the session file) and returns
// true; outside (no readable session file) prints nothing and returns false.
bool status_inside_sandbox(bool json);

// Outside a sandbox: what `run` with these options would enforce here; launches nothing.
int status_command(const Config& config, SessionOptions options);

}  // namespace cordon
