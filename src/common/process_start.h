// One process's /proc/PID/stat, the fields cordon reads, and when a process started (field 22:
// clock ticks after boot): with the boot id, what tells a process from a later one that reuses
// its pid.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace cordon {

struct ProcStat {
  char state = '?';           // field 3: R, S, D, T (stopped by a signal), t (stopped by a tracer), Z, ...
  pid_t ppid = 0;             // field 4
  pid_t pgrp = 0;             // field 5: the process group, as this process's pid namespace sees it
  long long start_ticks = 0;  // field 22
};

// The stat line's fields; nullopt when `text` is not one. The command name (field 2) may hold
// spaces and parentheses: fields are counted after its last ')'.
std::optional<ProcStat> parse_proc_stat(const std::string& text);

// `pid`'s ("self" for the caller), or nullopt when there is no such process.
std::optional<ProcStat> read_proc_stat(const std::string& pid);

// The start time of `pid` ("self" for the caller), or nullopt when there is no such process.
std::optional<long long> process_start_ticks(const std::string& pid);

// This boot's id (/proc/sys/kernel/random/boot_id), trimmed.
std::string boot_id();

}  // namespace cordon
