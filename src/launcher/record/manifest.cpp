#include "launcher/record/manifest.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/sha256.h"
#include "common/text.h"
#include "common/utc_time.h"
#include "launcher/seccomp/policy.h"
#include "launcher/record/tool_versions.h"

namespace cordon {
namespace {

// mkdir -p with 0700 for directories cordon creates.
void make_private_dirs(const std::string& path) {
  std::string prefix;
  std::stringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    prefix += "/" + part;
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      throw Error(errno_text("creating the session state directory " + prefix, errno),
                  "make " + path + " writable by this user, or fix its parent's permissions");
  }
}

std::string field(const char* key, const std::string& json_value) {
  return std::string("\"") + key + "\":" + json_value;
}

std::string quoted(const std::string& text) { return json_string(text); }

std::string kernel_release() {
  utsname u{};
  return ::uname(&u) == 0 ? std::string(u.release) : "";
}

std::string limits_json(const LimitPlan& limits) {
  std::string values = "{";
  for (const auto& r : limits.rlimits)
    values += (values.size() > 1 ? "," : "") + quoted(r.name) + ":" + std::to_string(r.value);
  if (limits.wall_clock_seconds > 0)
    values += (values.size() > 1 ? "," : "") + std::string("\"wall_clock_seconds\":") + std::to_string(limits.wall_clock_seconds);
  std::string cgroups = "[";
  for (const auto& b : limits.cgroup_budgets) {
    values += (values.size() > 1 ? "," : "") + quoted(b.limit_key) + ":" + std::to_string(b.value);
    cgroups += (cgroups.size() > 1 ? "," : "") + std::string("{\"limit\":") + quoted(b.limit_key) +
               ",\"cgroup\":" + quoted(cgroup::version_name(b.version)) + ",\"parent\":" + quoted(b.parent_dir) + "}";
  }
  return "{\"values\":" + values + "},\"enforced\":" + json_string_array(limits.enforced) +
         ",\"not_enforced\":" + json_string_array(limits.not_enforced) + ",\"cgroups\":" + cgroups + "]}";
}

std::string network_json(const SessionInfo& s) {
  if (!s.egress_jail) return "{\"mode\":\"host (egress jail disabled)\"}";
  return "{\"mode\":\"egress-jail\",\"blackhole\":" + json_string_array(s.jail_blackholes) +
         ",\"unreachable\":" + json_string_array(s.jail_unreachable) +
         ",\"allow\":" + json_string_array(s.jail_allow) + ",\"gateway\":" + quoted(s.jail_gateway) +
         ",\"dns_forward\":" + quoted(s.jail_dns) + "}";
}

}  // namespace


std::string new_session_id() {
  unsigned char random[4] = {};
  if (::getrandom(random, sizeof random, 0) != sizeof random)
    throw Error(errno_text("getrandom", errno));
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%02x%02x%02x%02x", random[0], random[1], random[2], random[3]);
  return utc_stamp() + "-" + suffix;
}

SessionRecord::SessionRecord(const Config& config, const HostFacts& facts, const SandboxPlan& plan) {
  const std::string dir = sessions_dir(facts);
  make_private_dirs(dir);
  id_ = new_session_id();
  path_ = dir + "/" + id_ + ".json";
  const std::string config_text = config.file_found ? read_text_file(config.source_path) : "";
  std::vector<std::string> env_names;
  for (const auto& [name, value] : plan.env) env_names.push_back(name);
  ToolVersions versions = tool_versions(facts, plan);

  std::vector<std::string> members = {
      field("session", quoted(id_)),
      field("started", quoted(utc_now())),
      field("uid", std::to_string(facts.uid)),
      field("user", quoted(facts.user)),
      field("config_path", quoted(config.source_path)),
      field("config_sha256", config.file_found ? quoted(sha256_hex(config_text)) : "null"),
      field("agent", quoted(plan.agent)),
      field("workspace", quoted(plan.workspace)),
      field("writable", json_string_array(plan.writable)),
      field("env_names", json_string_array(env_names)),
      field("bwrap_argv", json_string_array(plan.argv)),
      field("seccomp_rules_digest", quoted(plan.skip_seccomp ? "none" : seccomp::rules_digest(seccomp::build_rules(plan.seccomp)))),
      field("network", network_json(plan.session)),
      field("limits", limits_json(plan.limits)),
      field("versions", "{\"cordon\":" + quoted(versions.cordon) + ",\"bwrap\":" + quoted(versions.bwrap) +
                            ",\"pasta\":" + quoted(versions.pasta) + ",\"kernel\":" + quoted(kernel_release()) + "}"),
  };
  std::string manifest;
  for (size_t i = 0; i < members.size(); ++i) manifest += (i ? "," : "") + members[i];
  // Written under a temporary name and renamed to a new one: a reader never sees half of it.
  // (Renaming over an existing file would make ext4 flush it to disk: milliseconds per launch.)
  std::string temporary = path_ + ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    throw Error(errno_text("writing the session record " + temporary, errno),
                "make " + dir + " writable by this user; nothing runs without a record");
  std::string line = "{" + manifest + "}\n";
  bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(temporary.c_str(), path_.c_str()) != 0) {
    int err = errno;
    ::unlink(temporary.c_str());
    throw Error(errno_text("writing the session record " + path_, err), "nothing runs without a record");
  }
}

void SessionRecord::finish(const Receipt& r) {
  const LaunchOutcome& o = r.outcome;
  std::string receipt = "{" + field("ended", quoted(utc_now())) + "," +
                        field("launch_error", r.launch_error.empty() ? "null" : quoted(r.launch_error)) + "," +
                        field("command_ran", o.command_ran ? "true" : "false") + "," +
                        field("exit_code", std::to_string(o.exit_code)) + "," +
                        field("signal", o.exit_code > 128 && o.exit_code < 160 ? std::to_string(o.exit_code - 128) : "null") + "," +
                        field("duration_seconds", std::to_string(o.duration_seconds)) + "," +
                        field("limit_hits", json_string_array(r.limit_hits)) + "," +
                        field("teardown", "{\"verified\":" + std::string(r.teardown_problems.empty() ? "true" : "false") +
                                              ",\"problems\":" + json_string_array(r.teardown_problems) +
                                              ",\"cgroups_removed\":" + json_string_array(r.cgroups_removed) + "}") +
                        "}";
  // The receipt is the record's second line, appended in one write.
  std::string line = "{\"receipt\":" + receipt + "}\n";
  int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  bool ok = fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  if (fd >= 0) ok = ::close(fd) == 0 && ok;
  if (!ok) throw Error(errno_text("appending the receipt to " + path_, errno));
}

std::vector<std::string> verify_no_sandbox_processes(const LaunchOutcome& outcome) {
  // The launcher is the session's child subreaper: every process of the sandbox that outlives
  // its parent is reparented to it, so once it has no children left (run_sandbox waits for
  // that, bounded) nothing of the session runs. Whatever was still alive is named here.
  std::vector<std::string> problems;
  for (const auto& s : outcome.survivors) problems.push_back(s + " outlived the sandbox (killed)");
  return problems;
}



}  // namespace cordon
