// Which RLIMIT_* each resource limit key names: the launcher sets them from [limits], the
// battery reads them back from the session file's limits.values.
#pragma once

#include <sys/resource.h>

#include <string_view>

namespace cordon {

struct RlimitKey {
  const char* key;
  int resource;
};

// The rlimits a configuration's [limits] section can set.
inline constexpr RlimitKey kConfigurableRlimits[] = {
    {"nofile", RLIMIT_NOFILE}, {"nproc", RLIMIT_NPROC}, {"fsize_bytes", RLIMIT_FSIZE}, {"as_bytes", RLIMIT_AS}};

// Core dumps: always 0, never configurable, recorded under this key.
inline constexpr RlimitKey kCoreRlimit = {"core", RLIMIT_CORE};

// The resource a recorded key names (core included), or -1 for a key that is not an rlimit.
inline int recorded_rlimit(std::string_view key) {
  if (key == kCoreRlimit.key) return kCoreRlimit.resource;
  for (const auto& r : kConfigurableRlimits)
    if (key == r.key) return r.resource;
  return -1;
}

}  // namespace cordon
