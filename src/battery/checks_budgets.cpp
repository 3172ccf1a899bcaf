// 27: the budgets the launcher recorded are in force for this very process: each rlimit as
// getrlimit reports it, and each cgroup budget in the session cgroup that lists this process.
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <map>
#include <optional>
#include <sstream>

#include "battery/check.h"
#include "battery/sys.h"
#include "common/limit_keys.h"
#include "common/text.h"

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
    std::istringstream procs(read_file(parent + "/" + name + "/cgroup.procs").value_or(""));
    std::string pid;
    while (procs >> pid)
      if (pid == self) return parent + "/" + name;
  }
  return {};
}

// A cgroup file's value without its newline.
std::string value_of(const std::string& file) { return trim(read_file(file).value_or("")); }

// The file holds a number no higher than `limit` ("max" and unreadable are not).
bool within(const std::string& file, unsigned long long limit) {
  const std::optional<unsigned long long> value = parse_unsigned(value_of(file));
  return value && *value <= limit;
}

// The limit file a budget reads back from: whichever of the v2 and v1 names this cgroup has.
std::string limit_file(const std::string& dir, const LimitKey& key) {
  return exists(dir + "/" + key.v2_file) ? dir + "/" + key.v2_file : dir + "/" + key.v1_file;
}

// What is wrong with a cgroup budget for this process ("" when it holds); *file is the limit
// file it was read back from.
std::string cgroup_budget_problem(const std::map<std::string, std::string>& cgroup_parents, const LimitKey& limit,
                                  unsigned long long intended, std::string* file) {
  auto recorded = cgroup_parents.find(limit.controller);
  const std::string parent = recorded == cgroup_parents.end() ? "" : recorded->second;
  std::string dir = parent.empty() ? "" : own_session_cgroup(parent);
  if (dir.empty())
    return "no session cgroup under " + (parent.empty() ? "(unrecorded)" : parent) + " holds this process";
  *file = limit_file(dir, limit);
  if (!within(*file, intended)) return *file + " is \"" + value_of(*file) + "\", intended " + std::to_string(intended);
  // No swap beyond the budget, where the kernel accounts swap.
  const std::string v2_swap = dir + "/" + limit.v2_swap_file, v1_swap = dir + "/" + limit.v1_swap_file;
  if (*limit.v2_swap_file && exists(v2_swap) && !within(v2_swap, 0))
    return v2_swap + " is \"" + value_of(v2_swap) + "\", intended 0";
  if (*limit.v1_swap_file && exists(v1_swap) && !within(v1_swap, intended))
    return "memory+swap " + v1_swap + " is \"" + value_of(v1_swap) + "\", intended " + std::to_string(intended);
  return {};
}

// Each writable tmpfs the sandbox was given holds at most the intended bytes (host RAM).
void check_tmpfs_caps(const Context& c, std::vector<std::string>& held, std::vector<std::string>& problems) {
  const long long cap = c.session->filesystem.tmpfs_size_bytes;
  if (cap <= 0) return;
  std::vector<std::string> dirs = {"/tmp", c.home};
  if (c.session->filesystem.view == "system") dirs.emplace_back("/var/tmp");
  for (const auto& dir : dirs) {
    struct statvfs st {};
    if (::statvfs(dir.c_str(), &st) != 0) {
      problems.push_back(dir + ": statvfs failed");
      continue;
    }
    if ((st.f_flag & ST_RDONLY) != 0) continue;  // nothing can be written there (check 11 judges it)
    const unsigned long long size = static_cast<unsigned long long>(st.f_blocks) * st.f_frsize;
    if (size == 0 || size > static_cast<unsigned long long>(cap) + st.f_frsize)
      problems.push_back(dir + " holds up to " + std::to_string(size) + " bytes, intended " + std::to_string(cap));
  }
  if (problems.empty()) held.push_back("tmpfs_size_bytes=" + std::to_string(cap) + " (/tmp, $HOME, /var/tmp)");
}

}  // namespace

Outcome check_resource_budgets(const Context& c) {
  if (!c.session) return pass(std::string(kNoSession) + ": no intended budgets to compare");
  std::vector<std::string> held, problems;
  check_tmpfs_caps(c, held, problems);
  for (const auto& entry : c.session->limits.values) {
    auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = entry.substr(0, eq);
    const LimitKey* limit = find_recorded_limit_key(key);
    if (!limit || limit->kind == LimitKind::WallClock) continue;  // wall clock: kept outside
    // The session file's value: one that is no number is a problem here, not an exception.
    const std::optional<unsigned long long> number = parse_unsigned(entry.substr(eq + 1));
    if (!number) {
      problems.push_back(entry + ": the intended value is not a number");
      continue;
    }
    const unsigned long long intended = *number;
    if (limit->kind == LimitKind::Rlimit) {
      rlimit now{};
      ::getrlimit(limit->resource, &now);
      if (now.rlim_max == RLIM_INFINITY || now.rlim_max > intended || now.rlim_cur > now.rlim_max)
        problems.push_back(key + " hard limit is " + rlimit_text(now.rlim_max) + ", intended " +
                           std::to_string(intended));
      else held.push_back(entry);
      continue;
    }
    std::string file;
    std::string problem = cgroup_budget_problem(c.session->limits.cgroup_parents, *limit, intended, &file);
    if (!problem.empty()) {
      problems.push_back(key + ": " + problem);
      continue;
    }
    held.push_back(entry + " (" + file + ")");
  }
  if (!problems.empty()) return fail(join_some(problems, 8));
  // What the launcher could not hold (defaults, best-effort keys) was decided before the launch
  // and is on the record: a WARN naming it, so "all budgets held" is never read into a PASS.
  const std::string held_text = held.empty() ? "no budgets held" : join_some(held, 8);
  if (!c.session->limits.not_enforced.empty())
    return warn(held_text + "; NOT ENFORCED here: " + join_some(c.session->limits.not_enforced, 4) +
                " (cordon doctor names the fix)");
  if (held.empty()) return pass("no budgets configured");
  return pass(held_text);
}

}  // namespace cordon::battery
