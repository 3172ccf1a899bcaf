// Small helpers the probes share: errno names, bounded file reads, /proc parsing, unique
// marker names, path tests.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "common/error.h"

namespace cordon::probe {

// errno names (errno_name) come from common/error.h.

struct ReadResult {
  bool ok = false;
  int err = 0;       // errno of the failing step when !ok
  std::string data;  // at most max_bytes
};
// open(O_RDONLY|O_NOCTTY|O_NONBLOCK|O_CLOEXEC) + read up to max_bytes.
ReadResult read_some(const std::string& path, size_t max_bytes = 4096);

// Whole small text file, or nullopt.
std::optional<std::string> read_text(const std::string& path, size_t max_bytes = 1 << 20);

// "Name:\tvalue" line of /proc/PID/status (pid 0 = self); nullopt when unreadable/absent.
std::optional<std::string> status_field(pid_t pid, const std::string& field);

// Field 22 of /proc/PID/stat (start time in clock ticks), nullopt when unreadable.
std::optional<unsigned long long> proc_starttime(pid_t pid);
// Field 4 (PPid) of /proc/PID/stat.
std::optional<pid_t> proc_ppid(pid_t pid);

// Every numeric entry of /proc, ascending (bounded to 65536 entries).
std::vector<pid_t> visible_pids();

// A name no other run uses: ".cordon-probe-PID-HEX".
std::string unique_name(const std::string& tag);

std::string dirname_of(const std::string& path);
std::string basename_of(const std::string& path);
bool exists(const std::string& path);  // lstat
bool is_dir(const std::string& path);  // stat

// Joins up to `limit` items with ", " and notes how many were left out.
std::string join_limited(const std::vector<std::string>& items, size_t limit = 4);

// Printable ASCII only (evidence is shown on a terminal and in JSON), at most `max` chars.
std::string printable(const std::string& text, size_t max = 60);

// Milliseconds on a monotonic clock.
double now_ms();

}  // namespace cordon::probe
