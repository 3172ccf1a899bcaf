#include "common/intent.h"

#include <algorithm>

#include "common/error.h"
#include "common/intent_json.h"

namespace cordon {
namespace {

Json map_json(const std::map<std::string, std::string>& map) {
  Json out = Json::object();
  for (const auto& [key, value] : map) out[key] = bytes_json(value);
  return out;
}

std::map<std::string, std::string> map_from_json(const Json& object, const char* key) {
  std::map<std::string, std::string> out;
  if (!object.contains(key)) return out;
  if (!object[key].is_object()) throw Error(std::string("\"") + key + "\" is not an object");
  for (const auto& [name, value] : object[key].items()) out[name] = bytes_from_json(value);
  return out;
}

// "nofile=1024" -> "nofile": 1024 (a number when the value is one, else the text).
Json limit_values_json(const std::vector<std::string>& values) {
  Json out = Json::object();
  for (const auto& entry : values) {
    const auto eq = entry.find('=');
    const std::string key = entry.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : entry.substr(eq + 1);
    const bool number = !value.empty() && value.size() < 20 &&
                        value.find_first_not_of("0123456789") == std::string::npos;
    out[key] = number ? Json(std::stoull(value)) : bytes_json(value);
  }
  return out;
}

std::vector<std::string> limit_values_from_json(const Json& limits) {
  std::vector<std::string> out;
  if (!limits.contains("values")) return out;
  if (!limits["values"].is_object()) throw Error("\"limits.values\" is not an object");
  for (const auto& [key, value] : limits["values"].items())
    out.push_back(
        key + "=" +
        (value.is_number_unsigned() ? std::to_string(value.get<unsigned long long>()) : bytes_from_json(value)));
  return out;
}

NetworkIntent network_from_json(const Json& network) {
  NetworkIntent n;
  const std::string mode = string_member(network, "mode");
  if (auto known = network_mode_from_name(mode)) n.mode = *known;
  else if (!mode.empty()) throw Error("unknown network mode \"" + mode + "\"");
  n.blackholes = string_array_member(network, "blackholes");
  n.unreachable = string_array_member(network, "unreachable");
  n.allow = string_array_member(network, "allow");
  n.gateway = string_member(network, "gateway");
  n.dns_forward = string_member(network, "dns_forward");
  n.proxy = string_member(network, "proxy");
  n.proxy_allow = string_array_member(network, "proxy_allow");
  n.proxy_deny = string_array_member(network, "proxy_deny");
  n.proxy_run_allow = string_array_member(network, "run_allow");
  return n;
}

Json member(const Json& document, const char* key) { return document.contains(key) ? document[key] : Json::object(); }

}  // namespace

Json network_json(const NetworkIntent& n) {
  Json out{{"mode", network_mode_name(n.mode)}};
  if (n.mode == NetworkMode::Allowlist) {
    out["proxy"] = bytes_json(n.proxy);
    out["proxy_allow"] = bytes_array_json(n.proxy_allow);
    out["proxy_deny"] = bytes_array_json(n.proxy_deny);
    out["run_allow"] = bytes_array_json(n.proxy_run_allow);
  }
  if (!n.jailed()) return out;
  out["blackholes"] = bytes_array_json(n.blackholes);
  out["unreachable"] = bytes_array_json(n.unreachable);
  out["allow"] = bytes_array_json(n.allow);
  out["gateway"] = bytes_json(n.gateway);
  out["dns_forward"] = bytes_json(n.dns_forward);
  return out;
}

Json intent_json(const SessionIntent& s) {
  Json out = Json::object();
  out["config"] = {
      {"path", bytes_json(s.config.path)}, {"fixed_path", bytes_json(s.config.fixed_path)}, {"found", s.config.found}};
  out["agent"] = {{"name", bytes_json(s.agent.name)},
                  {"home", bytes_array_json(s.agent.home)},
                  {"control", bytes_array_json(s.agent.control)},
                  {"binary", bytes_json(s.agent.binary)},
                  {"args", bytes_array_json(s.agent.args)}};
  out["home"] = {{"path", bytes_json(s.home.path)},
                 {"account_path", bytes_json(s.home.account_path)},
                 {"keep_read_only", bytes_array_json(s.home.keep_read_only)},
                 {"caches", bytes_array_json(s.home.caches)}};
  out["workspace"] = bytes_json(s.workspace);
  out["workspace_mode"] = s.workspace_mode;
  out["writable"] = bytes_array_json(s.writable);
  out["filesystem"] = {{"view", bytes_json(s.filesystem.view)},
                       {"read", bytes_array_json(s.filesystem.read)},
                       {"private_masked", bytes_array_json(s.filesystem.private_masked)},
                       {"tmpfs_size_bytes", s.filesystem.tmpfs_size_bytes}};
  out["workspace_protected"] = bytes_array_json(s.workspace_protected);
  out["workspace_protect_absent"] = bytes_array_json(s.workspace_protect_absent);
  out["env_names"] = bytes_array_json(s.env_names);
  out["libexec"] = bytes_json(s.libexec);
  out["host_namespaces"] = map_json(s.host_namespaces);
  out["network"] = network_json(s.network);
  out["limits"] = {{"values", limit_values_json(s.limits.values)},
                   {"cgroup_parents", map_json(s.limits.cgroup_parents)},
                   {"not_enforced", bytes_array_json(s.limits.not_enforced)}};
  out["terminal"] = {{"operator_device", s.terminal.operator_device},
                     {"private_pty", s.terminal.private_pty},
                     {"pass", bytes_array_json(s.terminal.pass)}};
  out["landlock"] = {{"mode", s.landlock.mode},
                     {"abi", s.landlock.abi},
                     {"applied", s.landlock.applied},
                     {"rights", bytes_array_json(s.landlock.rights)},
                     {"scopes", bytes_array_json(s.landlock.scopes)},
                     {"unavailable", bytes_array_json(s.landlock.unavailable)},
                     {"why_not", bytes_json(s.landlock.why_not)}};
  out["last_verify"] = bytes_json(s.last_verify);
  return out;
}

SessionIntent intent_from_json(const Json& d) {
  SessionIntent s;
  const Json config = member(d, "config"), agent = member(d, "agent"), home = member(d, "home");
  s.config = {string_member(config, "path"), string_member(config, "fixed_path"), bool_member(config, "found")};
  s.agent = {string_member(agent, "name"), string_array_member(agent, "home"), string_array_member(agent, "control"),
             string_member(agent, "binary"), string_array_member(agent, "args")};
  s.home = {string_member(home, "path"), string_member(home, "account_path"),
            string_array_member(home, "keep_read_only"), string_array_member(home, "caches")};
  s.workspace = string_member(d, "workspace");
  s.workspace_mode = string_member(d, "workspace_mode");
  if (s.workspace_mode.empty()) s.workspace_mode = "direct";  // a session file from before review mode
  s.writable = string_array_member(d, "writable");
  const Json filesystem = member(d, "filesystem");
  s.filesystem = {string_member(filesystem, "view"), string_array_member(filesystem, "read"),
                  string_array_member(filesystem, "private_masked")};
  if (s.filesystem.view.empty()) s.filesystem.view = "host";  // a session file from before the view
  s.filesystem.tmpfs_size_bytes = integer_member(filesystem, "tmpfs_size_bytes").value_or(0);
  s.workspace_protected = string_array_member(d, "workspace_protected");
  s.workspace_protect_absent = string_array_member(d, "workspace_protect_absent");
  s.env_names = string_array_member(d, "env_names");
  s.libexec = string_member(d, "libexec");
  s.host_namespaces = map_from_json(d, "host_namespaces");
  s.network = network_from_json(member(d, "network"));
  const Json limits = member(d, "limits");
  s.limits = {limit_values_from_json(limits), map_from_json(limits, "cgroup_parents"),
              string_array_member(limits, "not_enforced")};
  const Json terminal = member(d, "terminal");
  s.terminal = {string_member(terminal, "operator_device"), bool_member(terminal, "private_pty"),
                string_array_member(terminal, "pass")};
  // A session file from before the layer has no member: "off", as it was.
  if (d.contains("landlock")) {
    const Json& landlock = d["landlock"];
    s.landlock = {
        string_member(landlock, "mode"),         static_cast<int>(integer_member(landlock, "abi").value_or(0)),
        bool_member(landlock, "applied"),        string_array_member(landlock, "rights"),
        string_array_member(landlock, "scopes"), string_array_member(landlock, "unavailable"),
        string_member(landlock, "why_not")};
  }
  s.last_verify = string_member(d, "last_verify");
  return s;
}

std::vector<std::string> bound_on_purpose(const SessionIntent& s) {
  std::vector<std::string> paths = {s.workspace, s.libexec};
  paths.insert(paths.end(), s.writable.begin(), s.writable.end());
  for (const auto& e : s.home.keep_read_only) paths.push_back(s.home.path + "/" + e);
  for (const auto& e : s.agent.home) paths.push_back(s.home.path + "/" + e);
  for (const auto& e : s.agent.control) paths.push_back(s.home.path + "/" + e);
  for (const auto& e : s.home.caches) paths.push_back(s.home.path + "/" + e);
  paths.insert(paths.end(), s.filesystem.read.begin(), s.filesystem.read.end());
  paths.erase(std::remove(paths.begin(), paths.end(), std::string()), paths.end());
  return paths;
}

std::string serialize_session(const SessionIntent& intent) {
  Json document{{"format", kSessionFormat}, {"version", kSessionVersion}};
  // Moved in member by member (Json::update copies each): every launch writes this file.
  Json members = intent_json(intent);
  for (auto& [key, value] : members.items()) document[key] = std::move(value);
  return dump_line(document) + "\n";
}

std::optional<SessionIntent> parse_session(const std::string& text, std::string* problem) {
  std::string why;
  std::optional<Json> document = parse_json(text, &why);
  const bool ours = document && document->is_object() && document->value("format", Json()) == kSessionFormat;
  // Another major version of ours says so; anything else is not a session file at all.
  if (!ours || !check_format(*document, kSessionFormat, kSessionVersion, &why)) {
    if (problem) *problem = ours ? why : "not a cordon session file (" + why + ")";
    return std::nullopt;
  }
  try {
    return intent_from_json(*document);
  } catch (const std::exception& e) {
    if (problem) *problem = std::string("malformed session file: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace cordon
