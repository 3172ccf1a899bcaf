// The cgroup hierarchies the launcher is a member of, read from /proc/self/cgroup and
// mountinfo: a host fact the budgets are planned from (budgets/cgroup_plan.h). Locating is
// pure; gathering reads the files.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/mountinfo.h"

namespace cordon::cgroup {

enum class Version { V1, V2 };

// The smallest limit a controller's file sets on a cgroup and its ancestors: what every
// process below it runs under (a container's or a pod's resources.limits among them).
struct EnclosingLimit {
  long long value = 0;
  std::string file;  // where it is set
};

// One hierarchy the launcher is a member of.
struct Hierarchy {
  Version version = Version::V2;
  std::string own_dir;                // absolute: mount point + the launcher's own cgroup path
  std::set<std::string> controllers;  // v1: bound to this hierarchy; v2: own_dir's cgroup.controllers
  bool writable = false;              // own_dir is writable by the launcher
  // v2 below the root: controllers already handed to children (cgroup.subtree_control), and
  // the processes besides the launcher in own_dir. With any, a controller not yet handed down
  // cannot be (cgroup v2 keeps processes out of cgroups that give children controllers).
  bool v2_root = false;
  std::set<std::string> subtree_control;
  size_t other_members = 0;
  // The hierarchy's mount point when the mount shows its whole tree ("" otherwise).
  std::string mount_root;
  // The mount own_dir lies under (a container's cgroup namespace shows its own cgroup there).
  std::string mount_point;
  // By limit key ("memory_max_bytes", "pids_max"): the smallest limit set on own_dir or an
  // ancestor up to the mount point. Absent: none set (or none readable).
  std::map<std::string, EnclosingLimit> enclosing;
  // The cgroup `cordon setup-user` delegated to this user (common/cgroup_delegation.h), when it
  // exists, is writable by the launcher and can hold its sessions: v1 any process of the user's
  // may be moved in; v2 only when own_dir lies below it. "" = none.
  std::string delegated_dir;
};

// Pure: every mounted hierarchy listed in /proc/self/cgroup, with own_dir resolved through the
// mount's root. v2 controllers and writability are left empty (gather_hierarchies fills them).
std::vector<Hierarchy> locate_hierarchies(const std::string& proc_self_cgroup, const std::vector<Mount>& mounts);

// Reads /proc/self/cgroup, v2 cgroup.controllers and access(W_OK); `mounts` is this process's
// mountinfo, parsed (read once per launch: the dangerous-path rules read it too); `user` names
// the delegated cgroup looked for ("" = none).
std::vector<Hierarchy> gather_hierarchies(const std::vector<Mount>& mounts, const std::string& user = "");
// The same, reading mountinfo itself (doctor).
std::vector<Hierarchy> gather_hierarchies(const std::string& user = "");

// A limit file's value ("max", a number; cgroup v1's "no limit" is a number near 2^63): the
// number, or -1 for no limit or unparsable text.
long long parse_cgroup_limit(const std::string& text);

// The smallest limit `file` sets in `own_dir` and each ancestor up to `mount_point`; value -1
// when none does. Reads the files.
EnclosingLimit read_enclosing_limit(const std::string& mount_point, const std::string& own_dir,
                                    const std::string& file);

// The controllers named in a cgroup v2 list file (cgroup.controllers, cgroup.subtree_control).
std::set<std::string> read_controller_list(const std::string& path);

// The controller a limit key needs ("memory_max_bytes" -> "memory"), "" for other keys.
std::string controller_for(const std::string& limit_key);

const char* version_name(Version v);

}  // namespace cordon::cgroup
