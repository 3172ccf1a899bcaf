// Resource budgets: which limits a session gets and whether this host can enforce them.
// A configured limit that cannot be enforced stops the launch unless the configuration marks
// it best-effort; the manifest records which were enforced and which were not.
#pragma once

#include <sys/resource.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/intent.h"
#include "launcher/budgets/cgroup_plan.h"
#include "launcher/inputs/config.h"

namespace cordon {

struct RlimitSetting {
  int resource;  // RLIMIT_*
  rlim_t value;
  std::string name;  // config key
};

struct LimitPlan {
  std::vector<RlimitSetting> rlimits;          // applied in the launcher's child before bwrap
  std::vector<cgroup::Budget> cgroup_budgets;  // memory/pids: the session's own cgroup
  long long wall_clock_seconds = 0;            // 0 = none
  std::vector<std::string> enforced;           // config keys, plus "core" (always 0)
  std::vector<std::string> not_enforced;       // best-effort keys this host cannot enforce
};

// Per-run overrides ("nofile=256"): may only lower a configured limit (or set an unset one).
// Throws cordon::Error (exit 2) for an unknown key, a malformed value or an increase.
std::map<std::string, long long> merge_limit_overrides(const LimitsConfig& limits,
                                                       const std::vector<std::string>& overrides,
                                                       const std::string& config_path);

// Which limits may go unenforced: the configured best_effort list, and the keys holding
// their built-in default (a default never stops a launch; it is recorded as not enforced).
struct LimitLeniency {
  std::vector<std::string> best_effort;
  std::vector<std::string> defaulted;
};

// The defaulted keys a per-run override did not name: an explicit --limit is held strictly.
LimitLeniency limit_leniency(const LimitsConfig& limits, const std::vector<std::string>& overrides);

// A cgroup budget above the limit the launcher itself runs under (a container's or a pod's
// resources.limits, set on its cgroup or an ancestor): the session would meet that limit first,
// with its launcher and helpers. Pure: the smallest enclosing limit for `key` across
// `cgroups`, when `value` exceeds it (nullopt: it fits, or nothing encloses it).
std::optional<cgroup::EnclosingLimit> budget_exceeds(const std::vector<cgroup::Hierarchy>& cgroups,
                                                     const std::string& key, long long value);
// The refusal's what and fix for it.
Error budget_exceeds_error(const std::string& key, long long value, const cgroup::EnclosingLimit& outer,
                           const std::string& config_path);

// Pure. `uid` (whose name is `account`) decides what the kernel enforces (RLIMIT_NPROC does not bind uid 0);
// `cgroups` (the launcher's own hierarchies) where memory/pids budgets can live. Throws
// cordon::Error when a limit cannot be enforced and is neither best-effort nor defaulted.
LimitPlan plan_limits(const std::map<std::string, long long>& limits, const LimitLeniency& leniency, unsigned uid,
                      const std::string& account, const std::vector<cgroup::Hierarchy>& cgroups,
                      const std::string& config_path);

// The budgets as the session file states them, in the order applied.
LimitsIntent describe_limits(const LimitPlan& plan);

// In the forked child, before bwrap: async-signal-safe setrlimit calls. Returns false on error.
bool apply_rlimits(const LimitPlan& plan);

}  // namespace cordon
