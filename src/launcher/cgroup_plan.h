// Where a session's memory and pids budgets can live: the cgroup hierarchies the launcher is
// in, read from /proc/self/cgroup and mountinfo. Locating and planning are pure; gathering
// reads the files. SessionCgroup (cgroup_session.h) carries the plan out.
//
// The session's cgroup is always a child of the launcher's own cgroup, so it stays inside
// every limit the launcher itself runs under (a container's or a systemd unit's).
#pragma once

#include <sys/types.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/mountinfo.h"

namespace cordon::cgroup {

enum class Version { V1, V2 };

// One hierarchy the launcher is a member of.
struct Hierarchy {
  Version version = Version::V2;
  std::string own_dir;                // absolute: mount point + the launcher's own cgroup path
  std::set<std::string> controllers;  // v1: bound to this hierarchy; v2: own_dir's cgroup.controllers
  bool writable = false;              // own_dir is writable by the launcher
};

// Pure: every mounted hierarchy listed in /proc/self/cgroup, with own_dir resolved through the
// mount's root. v2 controllers and writability are left empty (gather_hierarchies fills them).
std::vector<Hierarchy> locate_hierarchies(const std::string& proc_self_cgroup, const std::vector<Mount>& mounts);

// Reads /proc/self/cgroup, mountinfo, v2 cgroup.controllers and access(W_OK).
std::vector<Hierarchy> gather_hierarchies();

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
  std::string parent_dir;  // the launcher's own cgroup in that hierarchy
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
Placement place_budget(const std::vector<Hierarchy>& hierarchies, const std::string& limit_key, long long value,
                       uid_t uid);

// The controllers named in a cgroup v2 list file (cgroup.controllers, cgroup.subtree_control).
std::set<std::string> read_controller_list(const std::string& path);

// The controller a limit key needs ("memory_max_bytes" -> "memory"), "" for other keys.
std::string controller_for(const std::string& limit_key);

const char* version_name(Version v);

}  // namespace cordon::cgroup
