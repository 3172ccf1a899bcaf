// When a process started (field 22 of /proc/PID/stat: clock ticks after boot): with the boot
// id, what tells a process from a later one that reuses its pid.
#pragma once

#include <optional>
#include <string>

namespace cordon {

// The start time of `pid` ("self" for the caller), or nullopt when there is no such process.
std::optional<long long> process_start_ticks(const std::string& pid);

// This boot's id (/proc/sys/kernel/random/boot_id), trimmed.
std::string boot_id();

}  // namespace cordon
