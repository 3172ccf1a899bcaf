// Where a session's memory and pids budgets can live, planned purely from the launcher's
// cgroup hierarchies (inputs/cgroup_hierarchy.h). SessionCgroup (cgroup_session.h) carries
// the plan out.
//
// The session's cgroup is always a child of the launcher's own cgroup, so it stays inside
// every limit the launcher itself runs under (a container's or a systemd unit's).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "launcher/inputs/cgroup_hierarchy.h"

namespace cordon::cgroup {

// One budget file to write in the session's cgroup. `optional` files are skipped when the
// kernel does not offer them (swap accounting).
struct Setting {
  std::string file;
  std::string value;
  bool optional = false;
};

// A budget the session gets: the limit key it enforces and where.
struct Budget {
  std::string limit_key;   // "memory_max_bytes" / "pids_max"
  std::string controller;  // "memory" / "pids"
  Version version = Version::V2;
  std::string parent_dir;  // the launcher's own cgroup in that hierarchy, or the user's delegated one
  long long value = 0;     // the configured limit
  std::vector<Setting> settings;
};

// Pure: the budget for a limit key, or (when `why_not` comes back non-empty) why this host
// cannot enforce it and how to fix that.
struct Placement {
  Budget budget;
  std::string why_not;
  std::string fix;
};
// `uid` and `account` are the launching user's: a fix names the account `cordon setup-user` takes.
Placement place_budget(const std::vector<Hierarchy>& hierarchies, const std::string& limit_key, long long value,
                       uid_t uid, const std::string& account);

}  // namespace cordon::cgroup
