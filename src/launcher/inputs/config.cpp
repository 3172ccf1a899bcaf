#include "launcher/inputs/config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <cerrno>
#include <set>
#include <span>
#include <sstream>

#include "common/agent_control.h"
#include "common/build_config.h"
#include "common/egress_rules.h"
#include "common/error.h"
#include "common/ipv4.h"
#include "common/limit_keys.h"
#include "common/text.h"
#include "common/unique_fd.h"
#include "launcher/inputs/toml_text.h"

namespace cordon {
namespace {

// Where a value came from, for "file:line:column: key: problem" messages; each value read is
// recorded in `source` for the refusals planning finds later (ConfigSource).
struct Origin {
  const std::string& file;
  ConfigSource* source = nullptr;
  std::string at(const toml::source_region& region) const {
    const auto& begin = region.begin;
    return file + ":" + std::to_string(begin.line) + ":" + std::to_string(begin.column);
  }
  void note(const std::string& key, const toml::node& node) const {
    if (source) source->places[key] = at(node.source());
  }
};

// One line, whatever the file holds: keys and values are echoed with their control characters
// escaped (a newline would split the message, an ESC sequence restyle the operator's terminal).
[[noreturn]] void fail_at(const Origin& origin, const toml::source_region& where, const std::string& key,
                          const std::string& problem) {
  throw ConfigError(terminal_safe(origin.at(where) + ": " + key + ": " + problem));
}

[[noreturn]] void fail(const Origin& origin, const toml::node& node, const std::string& key,
                       const std::string& problem) {
  fail_at(origin, node.source(), key, problem);
}

std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    case toml::node_type::array: return "array";
    case toml::node_type::table: return "table";
    default: return "date/time";
  }
}

const toml::table& as_table(const Origin& o, const toml::node& node, const std::string& key) {
  if (!node.is_table()) fail(o, node, key, "expected a table, found " + type_name(node));
  return *node.as_table();
}

std::string string_value(const Origin& o, const toml::node& node, const std::string& key) {
  if (!node.is_string()) fail(o, node, key, "expected a string, found " + type_name(node));
  // An escaped NUL ("\u0000") would silently cut a path or name short where it is used.
  if (node.as_string()->get().find('\0') != std::string::npos) fail(o, node, key, "contains a NUL character");
  return node.as_string()->get();
}

std::string as_string(const Origin& o, const toml::node& node, const std::string& key) {
  std::string value = string_value(o, node, key);
  o.note(key, node);
  return value;
}

bool as_bool(const Origin& o, const toml::node& node, const std::string& key) {
  if (!node.is_boolean()) fail(o, node, key, "expected a boolean, found " + type_name(node));
  o.note(key, node);
  return node.as_boolean()->get();
}

long long as_non_negative(const Origin& o, const toml::node& node, const std::string& key) {
  if (!node.is_integer()) fail(o, node, key, "expected an integer, found " + type_name(node));
  long long value = node.as_integer()->get();
  if (value < 0) fail(o, node, key, "must not be negative");
  o.note(key, node);
  return value;
}

using ItemCheck = void (*)(const Origin&, const toml::node&, const std::string& key, const std::string& value);

// An array of unique strings, each validated by `check`.
std::vector<std::string> as_string_list(const Origin& o, const toml::node& node, const std::string& key,
                                        ItemCheck check) {
  if (!node.is_array()) fail(o, node, key, "expected an array of strings, found " + type_name(node));
  std::vector<std::string> out;
  std::set<std::string> seen;
  o.note(key, node);
  for (const toml::node& item : *node.as_array()) {
    std::string value = string_value(o, item, key);
    check(o, item, key, value);
    if (!seen.insert(value).second) fail(o, item, key, "duplicate entry \"" + value + "\"");
    o.note(config_item_key(key, out.size()), item);
    out.push_back(std::move(value));
  }
  return out;
}

bool has_dot_dot(const std::string& path) {
  std::stringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '/'))
    if (part == "..") return true;
  return false;
}

void check_absolute(const Origin& o, const toml::node& n, const std::string& key, const std::string& v) {
  if (v.empty() || v[0] != '/') fail(o, n, key, "\"" + v + "\" must be an absolute path");
  if (has_dot_dot(v)) fail(o, n, key, "\"" + v + "\" must not contain '..'");
}

// A read-only addition to the system view: absolute, and not the whole root (that is view = "host").
void check_read_path(const Origin& o, const toml::node& n, const std::string& key, const std::string& v) {
  check_absolute(o, n, key, v);
  if (v.find_first_not_of('/') == std::string::npos)
    fail(o, n, key, "\"" + v + "\" is the whole root: set filesystem.view = \"host\" instead (weaker)");
}

// True when `path` has a component other than "" and "." (so "./", "." and "" name nothing).
bool names_an_entry(const std::string& path) {
  std::stringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '/'))
    if (!part.empty() && part != ".") return true;
  return false;
}

void check_home_entry(const Origin& o, const toml::node& n, const std::string& key, const std::string& v) {
  if (v.empty() || v[0] == '/') fail(o, n, key, "\"" + v + "\" must be a path relative to $HOME");
  if (has_dot_dot(v)) fail(o, n, key, "\"" + v + "\" must stay inside $HOME");
  if (!names_an_entry(v)) fail(o, n, key, "\"" + v + "\" names $HOME itself, which would expose all of it");
}

void check_workspace_entry(const Origin& o, const toml::node& n, const std::string& key, const std::string& v) {
  if (v.empty() || v[0] == '/') fail(o, n, key, "\"" + v + "\" must be a path relative to the workspace");
  if (has_dot_dot(v)) fail(o, n, key, "\"" + v + "\" must stay inside the workspace (no '..')");
  if (!names_an_entry(v)) fail(o, n, key, "\"" + v + "\" names the workspace itself, which must stay writable");
}

void check_env_name(const Origin& o, const toml::node& n, const std::string& key, const std::string& v) {
  std::string name = v;
  if (!name.empty() && name.back() == '*') name.pop_back();  // prefix pattern
  bool ok = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) fail(o, n, key, "\"" + v + "\" is not an environment variable name (or NAME_* prefix)");
}

void check_ip_or_cidr(const Origin& o, const toml::node& n, const std::string& key, const std::string& v) {
  std::string problem;
  if (!parse_ipv4_cidr(v, &problem)) fail(o, n, key, "\"" + v + "\": " + problem);
}

// Rejects any key of `table` not in `known`.
void only_keys(const Origin& o, const toml::table& table, const std::string& section,
               std::span<const std::string_view> known) {
  for (const auto& [k, v] : table) {
    bool found = false;
    for (auto name : known) found = found || k.str() == name;
    if (!found) {
      std::string dotted = section.empty() ? std::string(k.str()) : section + "." + std::string(k.str());
      fail_at(o, k.source(), dotted, "unknown key");
    }
  }
}

void check_limit_name(const Origin& o, const toml::node& n, const std::string& key, const std::string& v) {
  if (!find_limit_key(v)) fail(o, n, key, "\"" + v + "\" is not a limit name");
}

void check_egress_rule(const Origin& o, const toml::node& n, const std::string& key, const std::string& v) {
  try {
    parse_egress_rule(v);
  } catch (const Error& e) {
    fail(o, n, key, std::string(e.what()) + " (" + e.fix() + ")");
  }
}

// The schema's keys, one list per section: the parser rejects every other key (only_keys)
// and config_schema_keys() lists these same arrays, so the docs test checks what is parsed.
constexpr std::string_view kAgentKeys[] = {"binary", "home", "control", "env", "allow_ptrace", "args", "network_allow"};
constexpr std::string_view kWorkspaceKeys[] = {"root", "hide_siblings", "protect", "mode"};
constexpr std::string_view kEnvironmentKeys[] = {"allow", "deny"};
constexpr std::string_view kHomeKeys[] = {"keep", "caches"};
constexpr std::string_view kFilesystemKeys[] = {"writable", "masks", "proc", "view", "read", "tmpfs_size_bytes"};
constexpr std::string_view kGitKeys[] = {"name", "email"};
constexpr std::string_view kNetworkKeys[] = {"mode",  "egress_jail", "allow_ip",  "dns_forward",
                                             "allow", "deny",        "user_allow"};
constexpr std::string_view kLimitsOwnKeys[] = {"best_effort"};  // besides one key per limit (common/limit_keys.h)
constexpr std::string_view kTerminalKeys[] = {"private", "pass", "filter_pipes"};
constexpr std::string_view kRecordsKeys[] = {"keep", "keep_days", "export", "transcript", "transcript_max_bytes"};
constexpr std::string_view kReviewKeys[] = {"size_cap_bytes", "scope", "secrets"};
constexpr std::string_view kReviewSecretKeys[] = {"name", "prefix", "charset", "min_length", "max_length"};
constexpr std::string_view kSandboxKeys[] = {"landlock"};

AgentProfile parse_agent(const Origin& o, const std::string& name, const toml::table& t) {
  const std::string s = "agents." + name;
  only_keys(o, t, s, kAgentKeys);
  AgentProfile p;
  p.name = name;
  // A shipped profile's destinations and control entries stay unless the operator's table
  // names its own (a redefined profile must not make the agent's settings writable by omission).
  if (auto shipped = builtin_agent_profiles().find(name); shipped != builtin_agent_profiles().end()) {
    p.network_allow = shipped->second.network_allow;
    p.control = shipped->second.control;
  }
  if (auto* n = t.get("network_allow"))
    p.network_allow = as_string_list(o, *n, s + ".network_allow", check_egress_rule);
  if (auto* n = t.get("binary")) {
    p.binary = as_string(o, *n, s + ".binary");
    check_absolute(o, *n, s + ".binary", p.binary);
  }
  if (auto* n = t.get("home")) p.home = as_string_list(o, *n, s + ".home", check_home_entry);
  if (auto* n = t.get("control")) p.control = as_string_list(o, *n, s + ".control", check_home_entry);
  if (auto* n = t.get("env")) p.env = as_string_list(o, *n, s + ".env", check_env_name);
  if (auto* n = t.get("allow_ptrace")) p.allow_ptrace = as_bool(o, *n, s + ".allow_ptrace");
  if (auto* n = t.get("args")) {
    if (!n->is_array()) fail(o, *n, s + ".args", "expected an array of strings, found " + type_name(*n));
    o.note(s + ".args", *n);
    for (const toml::node& item : *n->as_array()) {
      o.note(config_item_key(s + ".args", p.args.size()), item);
      p.args.push_back(string_value(o, item, s + ".args"));
    }
  }
  return p;
}

// One function per [section]: each fills its own part of the Config (its keys are checked by
// apply() against the section's key list).
void apply_workspace(const Origin& o, const toml::table& t, WorkspaceConfig& c) {
  if (auto* m = t.get("mode")) {
    std::string mode = as_string(o, *m, "workspace.mode");
    if (mode == "direct") c.mode = WorkspaceMode::Direct;
    else if (mode == "review") c.mode = WorkspaceMode::Review;
    else fail(o, *m, "workspace.mode", "must be \"direct\" or \"review\", not \"" + mode + "\"");
  }
  if (auto* h = t.get("hide_siblings")) c.hide_siblings = as_bool(o, *h, "workspace.hide_siblings");
  if (auto* p = t.get("protect")) c.protect = as_string_list(o, *p, "workspace.protect", check_workspace_entry);
  if (auto* r = t.get("root")) {
    c.root = as_string(o, *r, "workspace.root");
    if (!c.root.empty()) check_absolute(o, *r, "workspace.root", c.root);
  }
}

void apply_environment(const Origin& o, const toml::table& t, EnvironmentConfig& c) {
  if (auto* a = t.get("allow")) c.allow = as_string_list(o, *a, "environment.allow", check_env_name);
  if (auto* d = t.get("deny")) c.deny = as_string_list(o, *d, "environment.deny", check_env_name);
}

void apply_home(const Origin& o, const toml::table& t, HomeConfig& c) {
  if (auto* k = t.get("keep")) c.keep_read_only = as_string_list(o, *k, "home.keep", check_home_entry);
  if (auto* k = t.get("caches")) c.caches = as_string_list(o, *k, "home.caches", check_home_entry);
}

void apply_filesystem(const Origin& o, const toml::table& t, FilesystemConfig& c) {
  if (auto* z = t.get("tmpfs_size_bytes")) {
    c.tmpfs_size_bytes = as_non_negative(o, *z, "filesystem.tmpfs_size_bytes");
    if (c.tmpfs_size_bytes != 0 && c.tmpfs_size_bytes < (1LL << 20))
      fail(o, *z, "filesystem.tmpfs_size_bytes", "at least 1048576 (1 MiB), or 0 for no cap");
  }
  if (auto* r = t.get("read")) c.read = as_string_list(o, *r, "filesystem.read", check_read_path);
  if (auto* v = t.get("view")) {
    std::string view = as_string(o, *v, "filesystem.view");
    if (view == "system") c.view = RootView::System;
    else if (view == "host") c.view = RootView::Host;
    else fail(o, *v, "filesystem.view", "must be \"system\" or \"host\", not \"" + view + "\"");
  }
  if (auto* w = t.get("writable")) c.writable = as_string_list(o, *w, "filesystem.writable", check_absolute);
  if (auto* m = t.get("masks")) c.masks = as_string_list(o, *m, "filesystem.masks", check_absolute);
  if (auto* p = t.get("proc")) {
    std::string mode = as_string(o, *p, "filesystem.proc");
    if (mode == "fresh") c.proc = ProcMode::Fresh;
    else if (mode == "host-ro") c.proc = ProcMode::HostReadOnly;
    else fail(o, *p, "filesystem.proc", "must be \"fresh\" or \"host-ro\", not \"" + mode + "\"");
  }
}

void apply_git(const Origin& o, const toml::table& t, GitIdentityConfig& c) {
  if (auto* v = t.get("name")) c.name = as_string(o, *v, "git.name");
  if (auto* v = t.get("email")) c.email = as_string(o, *v, "git.email");
}

// `mode`, and `egress_jail` from before the modes: false is "host", true "jail". Both given
// must agree; a conflict is an error, never a silent pick.
void apply_network_mode(const Origin& o, const toml::table& t, NetworkConfig& c) {
  std::optional<NetworkMode> from_mode, from_jail;
  if (auto* v = t.get("mode")) {
    std::string name = as_string(o, *v, "network.mode");
    from_mode = network_mode_from_config_name(name);
    if (!from_mode) fail(o, *v, "network.mode", "\"" + name + "\" is not one of " + network_mode_config_names());
  }
  if (auto* v = t.get("egress_jail"))
    from_jail = as_bool(o, *v, "network.egress_jail") ? NetworkMode::EgressJail : NetworkMode::Host;
  if (from_mode && from_jail && (*from_jail == NetworkMode::Host) != (*from_mode == NetworkMode::Host))
    fail(o, *t.get("egress_jail"), "network.egress_jail",
         "contradicts network.mode = \"" + std::string(network_mode_config_name(*from_mode)) +
             "\" (egress_jail is the older spelling of mode = \"host\" / \"jail\": keep only mode)");
  if (from_mode) c.mode = *from_mode;
  else if (from_jail) c.mode = *from_jail;
}

void apply_network(const Origin& o, const toml::table& t, NetworkConfig& c) {
  apply_network_mode(o, t, c);
  if (auto* v = t.get("allow")) c.allow = as_string_list(o, *v, "network.allow", check_egress_rule);
  if (auto* v = t.get("deny")) c.deny = as_string_list(o, *v, "network.deny", check_egress_rule);
  if (auto* v = t.get("user_allow")) c.user_allow = as_string_list(o, *v, "network.user_allow", check_egress_rule);
  if (auto* v = t.get("allow_ip")) c.allow_ip = as_string_list(o, *v, "network.allow_ip", check_ip_or_cidr);
  if (auto* v = t.get("dns_forward")) {
    c.dns_forward = as_string(o, *v, "network.dns_forward");
    std::string problem;
    if (c.dns_forward != "auto" && !parse_ipv4_address(c.dns_forward, &problem))
      fail(o, *v, "network.dns_forward", "must be \"auto\" or an IPv4 address: " + problem);
  }
}

// Its keys are the limit names (common/limit_keys.h) and best_effort: checked here, not by apply().
void apply_limits(const Origin& o, const toml::table& t, LimitsConfig& c) {
  for (const auto& [k, v] : t) {
    std::string key = "limits." + std::string(k.str());
    if (k.str() == kLimitsOwnKeys[0]) {
      c.best_effort = as_string_list(o, v, key, check_limit_name);
      continue;
    }
    const LimitKey* limit = find_limit_key(k.str());
    if (!limit) fail_at(o, k.source(), key, "unknown key");
    long long value = as_non_negative(o, v, key);
    std::erase(c.defaulted, std::string(k.str()));
    if (value == 0 && limit->default_value > 0) {  // 0 turns a default budget off
      c.values.erase(std::string(k.str()));
      continue;
    }
    if (!limit_value_in_bounds(*limit, value))
      fail(o, v, key,
           std::to_string(value) + " is outside " + std::to_string(limit->min) + ".." + std::to_string(limit->max));
    c.values[std::string(k.str())] = value;
  }
}

std::string passable_names() {
  std::string out;
  for (const auto& name : passable_terminal_class_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

void check_terminal_class(const Origin& o, const toml::node& n, const std::string& key, const std::string& v) {
  auto c = terminal_class_named(v);
  if (!c || *c == TerminalClass::kUnknown)
    fail(o, n, key, "\"" + v + "\" is not a class that can be passed (" + passable_names() + ")");
}

void apply_terminal(const Origin& o, const toml::table& t, TerminalConfig& c) {
  if (auto* v = t.get("private")) c.private_pty = as_bool(o, *v, "terminal.private");
  if (auto* v = t.get("filter_pipes")) c.filter_pipes = as_bool(o, *v, "terminal.filter_pipes");
  if (auto* v = t.get("pass")) {
    // The list replaces the default: `pass = []` drops the status reports too.
    c.pass = TerminalPassSet{};
    for (const auto& name : as_string_list(o, *v, "terminal.pass", check_terminal_class))
      c.pass.add(*terminal_class_named(name));
  }
}

}  // namespace

const char* landlock_mode_name(LandlockMode mode) {
  return mode == LandlockMode::Auto ? "auto" : mode == LandlockMode::Required ? "required" : "off";
}

namespace {

void apply_sandbox(const Origin& o, const toml::table& t, SandboxConfig& c) {
  if (auto* v = t.get("landlock")) {
    std::string mode = as_string(o, *v, "sandbox.landlock");
    if (mode == "auto") c.landlock = LandlockMode::Auto;
    else if (mode == "required") c.landlock = LandlockMode::Required;
    else if (mode == "off") c.landlock = LandlockMode::Off;
    else fail(o, *v, "sandbox.landlock", "must be \"auto\", \"required\" or \"off\", not \"" + mode + "\"");
  }
}

void apply_records(const Origin& o, const toml::table& t, RecordsConfig& c) {
  if (auto* v = t.get("keep")) {
    c.keep = as_non_negative(o, *v, "records.keep");
    if (c.keep < 1) fail(o, *v, "records.keep", "must be at least 1 (the latest session's record is kept)");
  }
  if (auto* v = t.get("keep_days")) c.keep_days = as_non_negative(o, *v, "records.keep_days");
  if (auto* v = t.get("transcript")) c.transcript = as_bool(o, *v, "records.transcript");
  if (auto* v = t.get("transcript_max_bytes")) {
    c.transcript_max_bytes = as_non_negative(o, *v, "records.transcript_max_bytes");
    if (c.transcript_max_bytes < 4096)
      fail(o, *v, "records.transcript_max_bytes",
           "must be at least 4096 (a transcript that holds nothing says nothing)");
  }
  if (auto* v = t.get("export")) {
    const std::string value = as_string(o, *v, "records.export");
    const std::string socket_prefix = "unix:";
    RecordExportTarget& e = c.export_to;
    e.spelled = value;
    if (value.empty()) e.kind = RecordExportTarget::Kind::None;
    else if (value == "stderr") e.kind = RecordExportTarget::Kind::Stderr;
    else if (value.rfind(socket_prefix, 0) == 0 && value.size() > socket_prefix.size() &&
             value[socket_prefix.size()] == '/') {
      e.kind = RecordExportTarget::Kind::UnixSocket;
      e.path = value.substr(socket_prefix.size());
      // sun_path holds 107 bytes and a NUL.
      if (e.path.size() > 107) fail(o, *v, "records.export", "the socket path is longer than 107 bytes");
    } else if (value[0] == '/') {
      e.kind = RecordExportTarget::Kind::File;
      e.path = value;
    } else {
      fail(o, *v, "records.export",
           "must be \"stderr\", an absolute path (a file or FIFO, e.g. /proc/1/fd/1 in a pod) or \"unix:\" "
           "followed by an absolute socket path, not \"" +
               value + "\"");
    }
  }
}

// Its keys are profile names, each a table of kAgentKeys (parse_agent checks them).
void apply_agents(const Origin& o, const toml::table& t, Config& c) {
  for (const auto& [k, v] : t) {
    std::string name(k.str());
    for (char ch : name)
      if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_'))
        fail(o, v, "agents." + name, "profile names use letters, digits, '-' and '_'");
    c.agents[name] = parse_agent(o, name, as_table(o, v, "agents." + name));
  }
}

// [review] secrets: an array of tables, each a token rule (review/review_scan.h).
ReviewTokenRule parse_secret_rule(const Origin& o, const toml::node& item, const std::string& key) {
  const toml::table& t = as_table(o, item, key);
  only_keys(o, t, key, kReviewSecretKeys);
  ReviewTokenRule rule;
  for (auto [name, field] : {std::pair{"name", &rule.name}, {"prefix", &rule.prefix}, {"charset", &rule.charset}}) {
    const toml::node* n = t.get(name);
    if (!n) fail(o, item, key + "." + name, "is required");
    *field = as_string(o, *n, key + "." + name);
    if (field->empty()) fail(o, *n, key + "." + name, "must not be empty");
  }
  if (rule.prefix.size() < 3)
    fail(o, *t.get("prefix"), key + ".prefix", "must be at least 3 bytes (a shorter one matches everywhere)");
  if (auto* n = t.get("min_length")) rule.min_length = as_non_negative(o, *n, key + ".min_length");
  if (auto* n = t.get("max_length")) rule.max_length = as_non_negative(o, *n, key + ".max_length");
  if (rule.min_length < 1 || rule.max_length < rule.min_length || rule.max_length > 4096)
    fail(o, item, key, "needs 1 <= min_length <= max_length <= 4096");
  return rule;
}

void apply_review(const Origin& o, const toml::table& t, ReviewConfig& c) {
  if (auto* v = t.get("size_cap_bytes")) c.size_cap_bytes = as_non_negative(o, *v, "review.size_cap_bytes");
  if (auto* v = t.get("scope"))
    c.scope = as_string_list(o, *v, "review.scope",
                             [](const Origin& o, const toml::node& n, const std::string& key, const std::string& glob) {
                               if (glob.empty() || glob[0] == '/')
                                 fail(o, n, key, "\"" + glob + "\" must be a glob relative to the workspace");
                             });
  if (auto* v = t.get("secrets")) {
    if (!v->is_array()) fail(o, *v, "review.secrets", "expected an array of tables, found " + type_name(*v));
    o.note("review.secrets", *v);
    for (const toml::node& item : *v->as_array())
      c.secrets.push_back(parse_secret_rule(o, item, config_item_key("review.secrets", c.secrets.size())));
  }
}

struct SchemaSection {
  const char* name;
  // The section's own keys; empty for a section whose keys are names (limits, agents), which
  // its apply function checks itself.
  std::span<const std::string_view> keys;
  void (*apply)(const Origin&, const toml::table&, Config&);
};

// The schema's sections, in the order the shipped etc/cordon.toml lists them.
constexpr SchemaSection kSections[] = {
    {"workspace", kWorkspaceKeys,
     [](const Origin& o, const toml::table& t, Config& c) { apply_workspace(o, t, c.workspace); }},
    {"environment", kEnvironmentKeys,
     [](const Origin& o, const toml::table& t, Config& c) { apply_environment(o, t, c.environment); }},
    {"home", kHomeKeys, [](const Origin& o, const toml::table& t, Config& c) { apply_home(o, t, c.home); }},
    {"filesystem", kFilesystemKeys,
     [](const Origin& o, const toml::table& t, Config& c) { apply_filesystem(o, t, c.filesystem); }},
    {"git", kGitKeys, [](const Origin& o, const toml::table& t, Config& c) { apply_git(o, t, c.git); }},
    {"network", kNetworkKeys, [](const Origin& o, const toml::table& t, Config& c) { apply_network(o, t, c.network); }},
    {"limits", {}, [](const Origin& o, const toml::table& t, Config& c) { apply_limits(o, t, c.limits); }},
    {"terminal", kTerminalKeys,
     [](const Origin& o, const toml::table& t, Config& c) { apply_terminal(o, t, c.terminal); }},
    {"records", kRecordsKeys, [](const Origin& o, const toml::table& t, Config& c) { apply_records(o, t, c.records); }},
    {"review", kReviewKeys, [](const Origin& o, const toml::table& t, Config& c) { apply_review(o, t, c.review); }},
    {"sandbox", kSandboxKeys, [](const Origin& o, const toml::table& t, Config& c) { apply_sandbox(o, t, c.sandbox); }},
    {"agents", {}, apply_agents},
};

void apply(const Origin& o, const toml::table& root, Config& c) {
  std::vector<std::string_view> names;
  for (const SchemaSection& section : kSections) names.emplace_back(section.name);
  only_keys(o, root, "", names);
  for (const SchemaSection& section : kSections) {
    auto* n = root.get(section.name);
    if (!n) continue;
    const toml::table& table = as_table(o, *n, section.name);
    if (!section.keys.empty()) only_keys(o, table, section.name, section.keys);
    section.apply(o, table, c);
  }
}

}  // namespace

std::string config_item_key(const std::string& key, size_t index) { return key + "[" + std::to_string(index) + "]"; }

std::string ConfigSource::prefix(const std::string& key, std::optional<size_t> index) const {
  auto place = places.find(index ? config_item_key(key, *index) : key);
  const std::string where = place != places.end() ? place->second
                            : file.empty()        ? std::string("the built-in configuration")
                                                  : file;
  return where + ": " + key + ": ";
}

ConfigError ConfigSource::error(const std::string& key, std::optional<size_t> index, const std::string& problem,
                                const std::string& fix) const {
  return ConfigError(terminal_safe(prefix(key, index) + problem), terminal_safe(fix));
}

std::string Config::active_agent(const std::string& agent_flag, const std::vector<std::string>& command) const {
  if (!agent_flag.empty()) return agent_flag;
  if (command.empty()) return "generic";
  const std::string& program = command[0];
  const std::string base = program.substr(program.rfind('/') + 1);
  // Only the shipped agents: an operator's own profile is chosen by name, never by accident.
  auto shipped = builtin_agent_profiles().find(base);
  return shipped != builtin_agent_profiles().end() && base != "generic" ? base : "generic";
}

const AgentProfile& Config::agent(const std::string& name) const {
  auto it = agents.find(name);
  if (it == agents.end()) {
    std::string known;
    for (const auto& [k, v] : agents) known += (known.empty() ? "" : ", ") + k;
    throw Error("unknown agent profile \"" + terminal_safe(name) + "\"",
                "use one of: " + known + " (or add [agents." + terminal_safe(name) + "] to " +
                    (source.file.empty() ? std::string("the configuration") : source.file) + ")",
                kExitConfigError);
  }
  return it->second;
}

// cordon is the outer sandbox: an agent's own sandbox needs nested user namespaces, which the
// sandbox refuses, and would fail every command. Claude Code's is turned off through its
// highest-priority settings layer (the command line), Codex runs commands as it would with
// full access, which here is cordon's sandbox. Gemini CLI's sandbox is off unless asked for.
std::map<std::string, AgentProfile> with_shipped_lists(std::map<std::string, AgentProfile> profiles) {
  profiles["claude"].args = {"--settings", R"({"sandbox":{"enabled":false}})"};
  profiles["codex"].args = {"-c", R"(sandbox_mode="danger-full-access")"};
  // What each agent reads to decide what to run: read-only inside (docs/agents.md).
  for (const auto& name : agents_with_control_entries()) profiles[name].control = shipped_control_entries(name);
  // network.mode = "allowlist": each agent's API and what its login needs (docs/network.md).
  profiles["claude"].network_allow = {"api.anthropic.com", "console.anthropic.com", "claude.ai",
                                      "statsig.anthropic.com"};
  profiles["codex"].network_allow = {"api.openai.com", "auth.openai.com", "chatgpt.com"};
  profiles["gemini"].network_allow = {"generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com",
                                      "oauth2.googleapis.com", "accounts.google.com", "www.googleapis.com"};
  return profiles;
}

const std::map<std::string, AgentProfile>& builtin_agent_profiles() {
  // Home entries are each agent's own state; env names are what it needs to authenticate.
  static const std::map<std::string, AgentProfile> profiles = with_shipped_lists({
      {"generic", {"generic", "", {}, {}, false, true}},
      {"claude",
       {"claude",
        "",
        {".claude", ".claude.json"},
        {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL",
         "ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_VERTEX_PROJECT_ID", "CLAUDE_CODE_USE_BEDROCK",
         "CLAUDE_CODE_USE_VERTEX", "CLOUD_ML_REGION"},
        false,
        true}},
      {"codex", {"codex", "", {".codex"}, {"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID"}, false, true}},
      {"gemini",
       {"gemini",
        "",
        {".gemini"},
        {"GEMINI_API_KEY", "GOOGLE_API_KEY", "GEMINI_MODEL", "GEMINI_CLI_TRUST_WORKSPACE", "GOOGLE_GEMINI_BASE_URL",
         "GOOGLE_VERTEX_BASE_URL", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_GENAI_USE_VERTEXAI"},
        false,
        true}},
  });
  return profiles;
}

Config default_config() {
  Config c;
  c.agents = builtin_agent_profiles();
  for (const auto& k : kLimitKeys) {
    if (k.default_value == 0) continue;
    c.limits.values[k.name] = k.default_value;
    c.limits.defaulted.emplace_back(k.name);
  }
  return c;
}

Config parse_config(const std::string& text, const std::string& source_name) {
  Config c = default_config();
  c.source.file = source_name;
  c.file_found = true;
  // toml++ 3.3.0 has undefined behaviour on some bytes and characters (inputs/toml_text.h):
  // such a file is refused before it reads it, at the first one. The same scan gives it the
  // text without the bodies of whole-line comments, which it would read a character at a time.
  ScannedToml scanned = scan_toml_text(text);
  if (const auto& problem = scanned.problem)
    throw ConfigError(terminal_safe(source_name) + ":" + std::to_string(problem->line) + ":" +
                      std::to_string(problem->column) + ": " + problem->what);
  toml::table root;
  try {
    root = toml::parse(scanned.for_parser, source_name);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw ConfigError(terminal_safe(source_name + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) + ": " +
                                    std::string(e.description())));
  }
  Origin origin{source_name, &c.source};
  apply(origin, root, c);
  return c;
}

namespace {

// "PATH: cannot read configuration: REASON", the path terminal-safe.
ConfigError unreadable(const std::string& path, int err) {
  return ConfigError(errno_text(terminal_safe(path) + ": cannot read configuration", err));
}

}  // namespace

Config load_config(const std::string& path) {
  // O_NONBLOCK: a FIFO at the path must not hang the launcher; it is refused below.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) {
    if (errno == ENOENT) {
      Config c = default_config();
      c.source.file = path;
      c.file_found = false;
      return c;
    }
    throw unreadable(path, errno);
  }
  // A directory reads as empty, which would silently mean "the defaults".
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw unreadable(path, errno);
  if (!S_ISREG(st.st_mode)) throw ConfigError(terminal_safe(path) + ": not a regular file");
  std::string text;
  char chunk[8192];
  for (;;) {
    ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw unreadable(path, errno);
    if (n == 0) break;
    text.append(chunk, static_cast<size_t>(n));
  }
  return parse_config(text, path);
}

void refuse_config_override(const std::string& path, bool test_build) {
  if (test_build || path == build::kConfigPath) return;
  throw Error("--config " + path + ": this cordon reads its configuration only from " + build::kConfigPath +
                  " (--config exists in test builds only)",
              "edit " + std::string(build::kConfigPath) + " as root", kExitConfigError);
}

std::vector<std::string> config_schema_keys() {
  std::vector<std::string> keys;
  for (const SchemaSection& section : kSections)
    for (auto key : section.keys) keys.push_back(std::string(section.name) + "." + std::string(key));
  for (const auto& k : kLimitKeys) keys.push_back("limits." + std::string(k.name));
  for (auto key : kLimitsOwnKeys) keys.push_back("limits." + std::string(key));
  for (auto key : kAgentKeys) keys.push_back("agents.*." + std::string(key));
  return keys;
}

}  // namespace cordon
