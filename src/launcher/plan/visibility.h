// Whether a host path is there inside the sandbox a plan describes: a command the host finds
// may be hidden inside (in the home's tmpfs, outside the system view), and execvp inside would
// then fail after the whole sandbox was set up.
#pragma once

#include <string>

#include "common/intent.h"

namespace cordon {

// True when `real_path` (absolute, resolved) is visible inside a sandbox with this intent.
bool visible_inside(const SessionIntent& intent, const std::string& real_path);

}  // namespace cordon
