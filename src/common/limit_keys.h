// The [limits] keys, once: what each one limits and how. The configuration parser, the
// launcher's budgets (rlimits, the session cgroup, the wall clock), `cordon status` and
// battery check 27 (which reads each budget back in the running sandbox) all derive from it.
#pragma once

#include <sys/resource.h>

#include <string>
#include <string_view>

namespace cordon {

enum class LimitKind { Rlimit, Cgroup, WallClock };
enum class LimitUnit { Bytes, Count, Seconds };

struct LimitKey {
  const char* name;
  LimitKind kind;
  LimitUnit unit;
  const char* reads_as;  // how `cordon status` shows it: "{}" is the quantity in its unit
  int resource = -1;     // RLIMIT_* (Rlimit keys)
  // Cgroup keys: the controller, and the files set in the session cgroup. The swap file is
  // optional (kernels without swap accounting): v2 gets 0 (no swap at all), v1 the limit
  // itself (memsw counts memory plus swap).
  const char* controller = "";
  const char* v2_file = "";
  const char* v2_swap_file = "";
  const char* v1_file = "";
  const char* v1_swap_file = "";
  // Accepted values, inclusive; min == max == 0: only non-negative (what TOML parsing checks).
  long long min = 0;
  long long max = 0;
  // The budget every session gets when the configuration leaves the key out (0: none). A
  // defaulted budget the host cannot hold is recorded as not enforced instead of refusing.
  long long default_value = 0;
};

// In configuration (and documentation) order.
inline constexpr LimitKey kLimitKeys[] = {
    // 0: none. At most a year: the launcher's deadline arithmetic never overflows.
    {"wall_clock_seconds", LimitKind::WallClock, LimitUnit::Seconds, "{} wall clock", -1, "", "", "", "", "", 0,
     31536000},
    // The launcher's child and bwrap need more than 16 descriptors before the command runs; at
    // most the kernel's default fs.nr_open.
    {"nofile", LimitKind::Rlimit, LimitUnit::Count, "{} open files", RLIMIT_NOFILE, "", "", "", "", "", 64, 1048576},
    {"nproc", LimitKind::Rlimit, LimitUnit::Count, "{} processes (rlimit)", RLIMIT_NPROC},
    {"fsize_bytes", LimitKind::Rlimit, LimitUnit::Bytes, "files up to {}", RLIMIT_FSIZE},
    // bwrap itself (a dynamically linked program) cannot start in much less.
    {"as_bytes", LimitKind::Rlimit, LimitUnit::Bytes, "{} address space per process", RLIMIT_AS, "", "", "", "", "",
     16LL << 20, 1LL << 62},
    // Enough memory for bwrap to start; at most what a 64-bit signed value holds comfortably.
    // Default 8 GiB: a build or a test run fits, a runaway allocation stops before the host swaps.
    {"memory_max_bytes", LimitKind::Cgroup, LimitUnit::Bytes, "{} memory (cgroup)", -1, "memory", "memory.max",
     "memory.swap.max", "memory.limit_in_bytes", "memory.memsw.limit_in_bytes", 1LL << 20, 1LL << 62, 8LL << 30},
    // The kernel's own bound (PID_MAX_LIMIT). Default 4096: a parallel build fits, a fork bomb
    // stops there.
    {"pids_max", LimitKind::Cgroup, LimitUnit::Count, "{} pids (cgroup)", -1, "pids", "pids.max", "", "pids.max", "", 1,
     4194304, 4096},
};

// Core dumps: always 0, never configurable, recorded under this key (a dump could write the
// agent's memory, tokens included, into the workspace).
inline constexpr LimitKey kCoreLimit = {"core", LimitKind::Rlimit, LimitUnit::Bytes, "core dumps up to {}",
                                        RLIMIT_CORE};

// The configurable key named `name`, or nullptr.
const LimitKey* find_limit_key(std::string_view name);
// As find_limit_key, and also the recorded-only "core".
const LimitKey* find_recorded_limit_key(std::string_view name);
// "wall_clock_seconds, nofile, ...": every configurable key, for messages.
std::string limit_key_names();
// True when `value` is within the key's bounds (a key without bounds takes any value >= 0).
bool limit_value_in_bounds(const LimitKey& key, long long value);

}  // namespace cordon
