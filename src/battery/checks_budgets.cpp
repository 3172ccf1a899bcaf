// 27: the budgets the launcher recorded are in force for this very process: each rlimit as
// getrlimit reports it, and each cgroup budget in the session cgroup that lists this process.
#include <sys/resource.h>
#include <unistd.h>

#include <sstream>

#include "battery/check.h"
#include "battery/sys.h"
#include "common/rlimit_keys.h"

namespace cordon::battery {
namespace {

std::string rlimit_text(rlim_t v) { return v == RLIM_INFINITY ? "unlimited" : std::to_string(v); }

// The session cgroup under `parent` whose cgroup.procs lists this process (pids are shown in
// the reader's pid namespace), or "" when none does.
std::string own_session_cgroup(const std::string& parent) {
  auto entries = list_dir(parent);
  if (!entries) return {};
  const std::string self = std::to_string(::getpid());
  for (const auto& name : *entries) {
    if (name.rfind("cordon-", 0) != 0 || name.rfind("cordon-launcher-", 0) == 0) continue;
    std::istringstream procs(read_text(parent + "/" + name + "/cgroup.procs").value_or(""));
    std::string pid;
    while (procs >> pid)
      if (pid == self) return parent + "/" + name;
  }
  return {};
}

std::string trimmed(const std::string& file) {
  std::string value = read_text(file).value_or("");
  while (!value.empty() && value.back() == '\n') value.pop_back();
  return value;
}

// The file holds a number no higher than `limit` ("max" and unreadable are not).
bool within(const std::string& file, unsigned long long limit) {
  std::string value = trimmed(file);
  return !value.empty() && value.find_first_not_of("0123456789") == std::string::npos && std::stoull(value) <= limit;
}

// The limit file a budget reads back from (v2 names first, then v1).
std::string limit_file(const std::string& dir, const std::string& key) {
  if (key == "pids_max") return dir + "/pids.max";
  return exists(dir + "/memory.max") ? dir + "/memory.max" : dir + "/memory.limit_in_bytes";
}

}  // namespace

Outcome check_resource_budgets(const Context& c) {
  if (!c.session) return pass(std::string(kNoSession) + ": no intended budgets to compare");
  std::vector<std::string> held, problems;
  for (const auto& entry : c.session->limits.values) {
    auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = entry.substr(0, eq);
    const unsigned long long intended = std::stoull(entry.substr(eq + 1));
    if (int resource = recorded_rlimit(key); resource >= 0) {
      rlimit now{};
      ::getrlimit(resource, &now);
      if (now.rlim_max == RLIM_INFINITY || now.rlim_max > intended || now.rlim_cur > now.rlim_max)
        problems.push_back(key + " hard limit is " + rlimit_text(now.rlim_max) + ", intended " + std::to_string(intended));
      else
        held.push_back(entry);
      continue;
    }
    if (key != "pids_max" && key != "memory_max_bytes") continue;  // wall clock: kept outside
    const std::string controller = key == "pids_max" ? "pids" : "memory";
    auto recorded = c.session->limits.cgroup_parents.find(controller);
    const std::string parent = recorded == c.session->limits.cgroup_parents.end() ? "" : recorded->second;
    std::string dir = parent.empty() ? "" : own_session_cgroup(parent);
    if (dir.empty()) {
      problems.push_back(key + ": no session cgroup under " + (parent.empty() ? "(unrecorded)" : parent) +
                         " holds this process");
      continue;
    }
    std::string file = limit_file(dir, key);
    if (!within(file, intended)) {
      problems.push_back(key + ": " + file + " is \"" + trimmed(file) + "\", intended " + std::to_string(intended));
      continue;
    }
    // No swap beyond the budget, where the kernel accounts swap.
    if (key == "memory_max_bytes" && exists(dir + "/memory.swap.max") && !within(dir + "/memory.swap.max", 0)) {
      problems.push_back(key + ": " + dir + "/memory.swap.max is \"" + trimmed(dir + "/memory.swap.max") + "\", intended 0");
      continue;
    }
    if (key == "memory_max_bytes" && exists(dir + "/memory.memsw.limit_in_bytes") &&
        !within(dir + "/memory.memsw.limit_in_bytes", intended)) {
      problems.push_back(key + ": memory+swap " + dir + "/memory.memsw.limit_in_bytes is \"" +
                         trimmed(dir + "/memory.memsw.limit_in_bytes") + "\", intended " + std::to_string(intended));
      continue;
    }
    held.push_back(entry + " (" + file + ")");
  }
  if (!problems.empty()) return fail(join_some(problems, 8));
  if (held.empty()) return pass("no budgets configured");
  return pass(join_some(held, 8));
}

}  // namespace cordon::battery
