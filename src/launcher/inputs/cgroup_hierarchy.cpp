#include "launcher/inputs/cgroup_hierarchy.h"

#include <unistd.h>

#include <algorithm>
#include <sstream>
#include <string_view>

#include "common/cgroup_delegation.h"
#include "common/limit_keys.h"
#include "common/paths.h"
#include "common/text.h"

namespace cordon::cgroup {
namespace {

// The cgroup v1 controllers; anything else in a v1 mount's options or in /proc/self/cgroup
// ("name=systemd", "noprefix", "favordynmods", ...) is not a controller.
const std::set<std::string, std::less<>> kV1Controllers = {"blkio",   "cpu",      "cpuacct",    "cpuset", "debug",
                                                           "devices", "freezer",  "hugetlb",    "memory", "misc",
                                                           "net_cls", "net_prio", "perf_event", "pids",   "rdma"};

// The controllers in a comma-separated list (a v1 mount's superblock options, or the second
// field of a /proc/self/cgroup line).
std::set<std::string> v1_controllers(std::string_view list) {
  std::set<std::string> out;
  while (!list.empty()) {
    const size_t comma = std::min(list.find(','), list.size());
    if (auto known = kV1Controllers.find(list.substr(0, comma)); known != kV1Controllers.end()) out.insert(*known);
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  return out;
}

// mount point + (own path below the mount's root); "" when the own path lies outside the mount.
std::string own_dir_in(const Mount& m, const std::string& own_path) {
  if (!path_within(own_path, m.root)) return {};
  std::string below = m.root == "/" ? own_path : own_path.substr(m.root.size());
  if (below.empty() || below == "/") return m.mount_point;
  return (m.mount_point == "/" ? "" : m.mount_point) + below;
}

}  // namespace

std::set<std::string> read_controller_list(const std::string& path) {
  std::set<std::string> out;
  std::stringstream in(read_text_file(path));
  std::string name;
  while (in >> name) out.insert(name);
  return out;
}

const char* version_name(Version v) { return v == Version::V1 ? "v1" : "v2"; }

std::string controller_for(const std::string& limit_key) {
  const LimitKey* key = find_limit_key(limit_key);
  return key ? key->controller : "";
}

std::vector<Hierarchy> locate_hierarchies(const std::string& proc_self_cgroup, const std::vector<Mount>& mounts) {
  std::vector<Hierarchy> out;
  // Each v1 mount's controllers, read from its options once, not once per line below.
  std::vector<std::set<std::string>> mount_controllers;
  mount_controllers.reserve(mounts.size());
  for (const auto& m : mounts)
    mount_controllers.push_back(m.fstype == "cgroup" ? v1_controllers(m.super_opts) : std::set<std::string>{});
  std::stringstream lines(proc_self_cgroup);
  std::string line;
  while (std::getline(lines, line)) {
    // "ID:CONTROLLERS:PATH"; v2 is "0::PATH".
    auto first = line.find(':');
    auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    std::string ids = line.substr(first + 1, second - first - 1);
    std::string own_path = line.substr(second + 1);
    // Outside this cgroup namespace's root ("/../x"), or a removed cgroup: nothing to build on.
    if (own_path.empty() || own_path[0] != '/' || own_path.find("/..") != std::string::npos ||
        own_path.find(" (deleted)") != std::string::npos)
      continue;
    bool v2 = line.compare(0, first, "0") == 0 && ids.empty();
    std::set<std::string> listed = v1_controllers(ids);
    if (!v2 && listed.empty()) continue;  // a named hierarchy without controllers
    // A writable mount of the hierarchy wins over a read-only one (which still yields a
    // "not writable" refusal rather than "no hierarchy").
    const Mount* chosen = nullptr;
    std::string chosen_dir;
    for (size_t i = 0; i < mounts.size(); ++i) {
      const Mount& m = mounts[i];
      if (v2 ? m.fstype != "cgroup2" : m.fstype != "cgroup") continue;
      if (!v2 && listed != mount_controllers[i]) continue;
      std::string dir = own_dir_in(m, own_path);
      if (dir.empty() || (chosen && (m.read_only() || !chosen->read_only()))) continue;
      chosen = &m;
      chosen_dir = dir;
    }
    if (chosen) {
      Hierarchy h;
      h.version = v2 ? Version::V2 : Version::V1;
      h.own_dir = chosen_dir;
      if (chosen->root == "/") h.mount_root = chosen->mount_point;
      h.mount_point = chosen->mount_point;
      if (!v2) h.controllers = listed;
      out.push_back(std::move(h));
    }
  }
  return out;
}

namespace {

// The delegated cgroup of `user` in `h`, when the launcher can hold sessions there.
std::string usable_delegation(const Hierarchy& h, const std::string& user) {
  if (user.empty() || h.mount_root.empty()) return {};
  const std::string dir = delegated_cgroup(h.mount_root, user);
  if (::access(dir.c_str(), W_OK) != 0) return {};
  if (h.version == Version::V1) return ::access((dir + "/tasks").c_str(), W_OK) == 0 ? dir : "";
  return path_within(h.own_dir, dir) && h.own_dir != dir ? dir : "";
}

}  // namespace

long long parse_cgroup_limit(const std::string& text) {
  const std::optional<long long> value = parse_signed(trim(text));
  if (!value || *value < 0) return -1;  // "max", or not a number
  // cgroup v1 writes "no limit" as the largest page-aligned value below 2^63.
  return *value >= (1LL << 62) ? -1 : *value;
}

EnclosingLimit read_enclosing_limit(const std::string& mount_point, const std::string& own_dir,
                                    const std::string& file) {
  EnclosingLimit smallest{-1, ""};
  for (std::string dir = own_dir; path_within(dir, mount_point); dir = parent_dir(dir)) {
    const long long value = parse_cgroup_limit(read_text_file(dir + "/" + file));
    if (value >= 0 && (smallest.value < 0 || value < smallest.value)) smallest = {value, dir + "/" + file};
    if (dir == mount_point) break;
  }
  return smallest;
}

namespace {

// Each budget key's enclosing limit in `h` (for the controllers it holds).
void read_enclosing_limits(Hierarchy& h) {
  if (h.mount_point.empty()) return;
  for (const LimitKey& key : kLimitKeys) {
    if (key.kind != LimitKind::Cgroup || h.controllers.count(key.controller) == 0) continue;
    const EnclosingLimit limit = read_enclosing_limit(h.mount_point, h.own_dir,
                                                      h.version == Version::V2 ? key.v2_file : key.v1_file);
    if (limit.value >= 0) h.enclosing[key.name] = limit;
  }
}

}  // namespace

std::vector<Hierarchy> gather_hierarchies(const std::vector<Mount>& mounts, const std::string& user) {
  std::vector<Hierarchy> found = locate_hierarchies(read_text_file("/proc/self/cgroup"), mounts);
  for (auto& h : found) {
    h.writable = ::access(h.own_dir.c_str(), W_OK) == 0;
    h.delegated_dir = usable_delegation(h, user);
    if (h.version != Version::V2) {  // v1: the controllers came from the mount
      read_enclosing_limits(h);
      continue;
    }
    h.controllers = read_controller_list(h.own_dir + "/cgroup.controllers");
    read_enclosing_limits(h);
    h.v2_root = ::access((h.own_dir + "/cgroup.type").c_str(), F_OK) != 0;
    if (h.v2_root) continue;
    h.subtree_control = read_controller_list(h.own_dir + "/cgroup.subtree_control");
    std::istringstream procs(read_text_file(h.own_dir + "/cgroup.procs"));
    for (long pid = 0; procs >> pid;) h.other_members += pid != ::getpid();
  }
  return found;
}

std::vector<Hierarchy> gather_hierarchies(const std::string& user) {
  return gather_hierarchies(parse_mountinfo(read_text_file("/proc/self/mountinfo")), user);
}

}  // namespace cordon::cgroup
