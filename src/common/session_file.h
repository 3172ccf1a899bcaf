// The session file: what the launcher intended, handed read-only to the battery inside the
// sandbox so it can compare reality against intent. It holds no secrets (no env values).
// Format: line-oriented "key value"; repeated keys form lists. Paths never contain newlines
// (the plan builder refuses them).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cordon {

inline constexpr const char* kSessionDir = "/run/cordon";
inline constexpr const char* kSessionFilePath = "/run/cordon/session";
inline constexpr const char* kGitConfigPath = "/run/cordon/gitconfig";

struct SessionInfo {
  int format = 1;
  std::string config_path;        // the file the launcher read
  std::string config_fixed_path;  // the build-time fixed path
  bool config_found = false;
  std::string agent;              // active profile
  std::vector<std::string> agent_home;   // home entries of the active profile
  std::vector<std::string> home_keep;    // read-only home entries for every profile
  std::string home;
  std::string workspace;
  std::vector<std::string> writable;     // host paths bound read-write
  std::vector<std::string> env_names;    // names the launcher passed in
  std::string libexec;
  std::string agent_binary;
  std::map<std::string, std::string> host_namespaces;  // "pid" -> "pid:[4026531836]"
  bool egress_jail = false;
  std::vector<std::string> jail_blackholes;    // prefixes, e.g. "10.0.0.0/8"
  std::vector<std::string> jail_unreachable;
  std::vector<std::string> jail_allow;         // /32 punches and allow-listed prefixes
  std::string jail_gateway;
  std::string jail_dns;
  std::vector<std::string> limits;   // "nofile=1024", "wall_clock_seconds=28800", ...
  std::map<std::string, std::string> cgroup_parents;  // "pids" -> "/sys/fs/cgroup/pids": the session cgroup's parent
  std::string last_verify;           // outcome of the last `cordon verify` before this launch
};

std::string serialize_session(const SessionInfo& info);

// Returns nullopt (with *problem) for text that is not a session file of a known format.
std::optional<SessionInfo> parse_session(const std::string& text, std::string* problem);

}  // namespace cordon
