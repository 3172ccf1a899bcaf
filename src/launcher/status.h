// `cordon status`: what is enforced, in a few lines, inside or outside a sandbox.
// A weaker setup never borrows the strong label: with the jail off the first line says so.
#pragma once

#include <string>

#include "common/session_file.h"

namespace cordon {

struct StatusView {
  bool inside = false;   // read from /run/cordon/session inside a sandbox
  SessionInfo session;   // what is (or would be) enforced
};

std::string render_status(const StatusView& view);
std::string render_status_json(const StatusView& view);

}  // namespace cordon
