// The current UTC time as the records write it.
#pragma once

#include <ctime>
#include <string>

namespace cordon {

// "2026-12-01T10:25:34Z"
std::string utc_now();

// "20261201T102534Z": the stamp that starts a session id.
std::string utc_stamp();
std::string utc_stamp_at(std::time_t when);

}  // namespace cordon
