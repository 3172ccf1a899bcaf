#include "common/session_file.h"

#include <sstream>

namespace cordon {
namespace {

void put(std::ostringstream& out, const char* key, const std::string& value) {
  out << key << ' ' << value << '\n';
}

void put_all(std::ostringstream& out, const char* key, const std::vector<std::string>& values) {
  for (const auto& v : values) put(out, key, v);
}

}  // namespace

std::string serialize_session(const SessionInfo& s) {
  std::ostringstream out;
  out << "cordon-session " << s.format << '\n';
  put(out, "config_path", s.config_path);
  put(out, "config_fixed_path", s.config_fixed_path);
  put(out, "config_found", s.config_found ? "1" : "0");
  put(out, "agent", s.agent);
  put_all(out, "agent_home", s.agent_home);
  put_all(out, "home_keep", s.home_keep);
  put(out, "home", s.home);
  put(out, "workspace", s.workspace);
  put_all(out, "writable", s.writable);
  put_all(out, "env_name", s.env_names);
  put(out, "libexec", s.libexec);
  put(out, "agent_binary", s.agent_binary);
  for (const auto& [kind, id] : s.host_namespaces) put(out, "host_ns", kind + " " + id);
  put(out, "egress_jail", s.egress_jail ? "1" : "0");
  put_all(out, "jail_blackhole", s.jail_blackholes);
  put_all(out, "jail_unreachable", s.jail_unreachable);
  put_all(out, "jail_allow", s.jail_allow);
  put(out, "jail_gateway", s.jail_gateway);
  put(out, "jail_dns", s.jail_dns);
  put_all(out, "limit", s.limits);
  for (const auto& [controller, dir] : s.cgroup_parents) put(out, "cgroup_parent", controller + " " + dir);
  put(out, "last_verify", s.last_verify);
  return out.str();
}

std::optional<SessionInfo> parse_session(const std::string& text, std::string* problem) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != "cordon-session 1") {
    if (problem) *problem = "not a cordon session file (format 1)";
    return std::nullopt;
  }
  SessionInfo s;
  while (std::getline(in, line)) {
    auto space = line.find(' ');
    std::string key = line.substr(0, space);
    std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "config_path") s.config_path = value;
    else if (key == "config_fixed_path") s.config_fixed_path = value;
    else if (key == "config_found") s.config_found = value == "1";
    else if (key == "agent") s.agent = value;
    else if (key == "agent_home") s.agent_home.push_back(value);
    else if (key == "home_keep") s.home_keep.push_back(value);
    else if (key == "home") s.home = value;
    else if (key == "workspace") s.workspace = value;
    else if (key == "writable") s.writable.push_back(value);
    else if (key == "env_name") s.env_names.push_back(value);
    else if (key == "libexec") s.libexec = value;
    else if (key == "agent_binary") s.agent_binary = value;
    else if (key == "host_ns") {
      auto sep = value.find(' ');
      if (sep != std::string::npos) s.host_namespaces[value.substr(0, sep)] = value.substr(sep + 1);
    } else if (key == "egress_jail") s.egress_jail = value == "1";
    else if (key == "jail_blackhole") s.jail_blackholes.push_back(value);
    else if (key == "jail_unreachable") s.jail_unreachable.push_back(value);
    else if (key == "jail_allow") s.jail_allow.push_back(value);
    else if (key == "jail_gateway") s.jail_gateway = value;
    else if (key == "jail_dns") s.jail_dns = value;
    else if (key == "limit") s.limits.push_back(value);
    else if (key == "cgroup_parent") {
      auto sep = value.find(' ');
      if (sep != std::string::npos) s.cgroup_parents[value.substr(0, sep)] = value.substr(sep + 1);
    }
    else if (key == "last_verify") s.last_verify = value;
    // Unknown keys are ignored so a newer launcher can add facts an older battery skips.
  }
  return s;
}

}  // namespace cordon
