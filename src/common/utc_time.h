// The current UTC time as the records write it.
#pragma once

#include <string>

namespace cordon {

// "2026-12-01T10:25:34Z"
std::string utc_now();

// "20261201T102534Z": the stamp that starts a session id.
std::string utc_stamp();

}  // namespace cordon
