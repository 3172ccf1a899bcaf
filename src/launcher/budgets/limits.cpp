#include "launcher/budgets/limits.h"

#include <algorithm>

#include "common/error.h"
#include "common/limit_keys.h"
#include "common/text.h"

namespace cordon {
namespace {

bool listed(const std::vector<std::string>& list, const std::string& key) {
  return std::find(list.begin(), list.end(), key) != list.end();
}

}  // namespace

std::map<std::string, long long> merge_limit_overrides(const LimitsConfig& limits,
                                                       const std::vector<std::string>& overrides,
                                                       const std::string& config_path) {
  std::map<std::string, long long> merged = limits.values;
  for (const auto& item : overrides) {
    auto eq = item.find('=');
    std::string key = item.substr(0, eq);
    std::string digits = eq == std::string::npos ? "" : item.substr(eq + 1);
    bool numeric = !digits.empty() && digits.size() < 19 &&
                   std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!find_limit_key(key) || !numeric)
      throw Error("--limit " + item + ": expected NAME=NUMBER with NAME one of " + limit_key_names(),
                  "for example --limit nofile=256", kExitConfigError);
    long long value = std::stoll(digits);
    const LimitKey* limit = find_limit_key(key);
    if (!limit_value_in_bounds(*limit, value))
      throw Error("--limit " + item + ": outside " + std::to_string(limit->min) + ".." + std::to_string(limit->max),
                  "give a value within that range", kExitConfigError);
    auto configured = limits.values.find(key);
    if (configured != limits.values.end() && value > configured->second)
      throw Error("--limit " + item + " would raise the configured " + key + " (" + std::to_string(configured->second) +
                      "): a run may only lower a limit",
                  "ask the operator to change [limits] in " + config_path, kExitConfigError);
    merged[key] = value;
  }
  return merged;
}

LimitLeniency limit_leniency(const LimitsConfig& limits, const std::vector<std::string>& overrides) {
  LimitLeniency leniency{limits.best_effort, {}};
  for (const auto& key : limits.defaulted) {
    bool overridden = std::any_of(overrides.begin(), overrides.end(),
                                  [&](const std::string& item) { return item.substr(0, item.find('=')) == key; });
    if (!overridden) leniency.defaulted.push_back(key);
  }
  return leniency;
}

std::optional<cgroup::EnclosingLimit> budget_exceeds(const std::vector<cgroup::Hierarchy>& cgroups,
                                                     const std::string& key, long long value) {
  std::optional<cgroup::EnclosingLimit> smallest;
  for (const auto& h : cgroups) {
    auto found = h.enclosing.find(key);
    if (found != h.enclosing.end() && (!smallest || found->second.value < smallest->value)) smallest = found->second;
  }
  if (!smallest || value <= smallest->value) return std::nullopt;
  return smallest;
}

Error budget_exceeds_error(const std::string& key, long long value, const cgroup::EnclosingLimit& outer,
                           const std::string& config_path) {
  const bool memory = cgroup::controller_for(key) == "memory";
  return Error("limits." + key + " = " + std::to_string(value) + " is above the limit cordon itself runs under (" +
                   std::to_string(outer.value) + ", set in " + terminal_safe(outer.file) +
                   ": a container's or a pod's limit): the session would meet that limit first, and its launcher "
                   "with it",
               "set limits." + key + " to at most " + std::to_string(outer.value) + " in " + config_path +
                   ", or raise the container's limit (a pod's resources.limits." +
                   (memory ? "memory; podman and docker: --memory)" : "; podman and docker: --pids-limit)"),
               kExitConfigError);
}

LimitPlan plan_limits(const std::map<std::string, long long>& limits, const LimitLeniency& leniency, unsigned uid,
                      const std::string& account, const std::vector<cgroup::Hierarchy>& cgroups,
                      const std::string& config_path) {
  LimitPlan plan;
  // Core dumps could write a copy of the agent's memory (with its tokens) into the workspace.
  plan.rlimits.push_back({kCoreLimit.resource, 0, kCoreLimit.name});
  plan.enforced.emplace_back(kCoreLimit.name);
  auto cannot = [&](const std::string& key, const std::string& why, const std::string& fix) {
    if (listed(leniency.defaulted, key)) {
      plan.not_enforced.push_back(key + " (default; " + why + ")");
      return;
    }
    if (listed(leniency.best_effort, key)) {
      plan.not_enforced.push_back(key + " (" + why + ")");
      return;
    }
    throw Error("limits." + key + " is configured but cannot be enforced here: " + why,
                fix + ", or add \"" + key + "\" to limits.best_effort in " + config_path);
  };
  for (const auto& [key, value] : limits) {
    const LimitKey* limit = find_limit_key(key);
    if (!limit) continue;  // config parsing and merge_limit_overrides admit only known keys
    if (limit->kind == LimitKind::WallClock) {
      plan.wall_clock_seconds = value;
      plan.enforced.push_back(key);
      continue;
    }
    if (limit->kind == LimitKind::Cgroup) {
      // A budget the enclosing limit would undercut: a configured one is a mistake to name; a
      // default is lowered to fit (the manifest records the value held).
      long long budget = value;
      if (auto outer = budget_exceeds(cgroups, key, value)) {
        if (!listed(leniency.defaulted, key)) throw budget_exceeds_error(key, value, *outer, config_path);
        budget = outer->value;
      }
      // In bounds: the configuration parser and merge_limit_overrides check every value.
      cgroup::Placement placed = cgroup::place_budget(cgroups, key, budget, uid, account);
      if (!placed.why_not.empty()) {
        cannot(key, placed.why_not, placed.fix);
      } else {
        plan.cgroup_budgets.push_back(placed.budget);
        plan.enforced.push_back(key);
      }
      continue;
    }
    if (limit->resource == RLIMIT_NPROC && uid == 0) {
      cannot(key, "the kernel does not apply RLIMIT_NPROC to uid 0", "launch the session as an ordinary user");
      continue;
    }
    plan.rlimits.push_back({limit->resource, static_cast<rlim_t>(value), key});
    plan.enforced.push_back(key);
  }
  return plan;
}

bool apply_rlimits(const LimitPlan& plan) {
  for (const auto& r : plan.rlimits) {
    rlimit limit{r.value, r.value};
    if (::setrlimit(r.resource, &limit) != 0) return false;
  }
  return true;
}

LimitsIntent describe_limits(const LimitPlan& plan) {
  LimitsIntent intent;
  for (const auto& r : plan.rlimits) intent.values.push_back(r.name + "=" + std::to_string(r.value));
  for (const auto& b : plan.cgroup_budgets) {
    intent.values.push_back(b.limit_key + "=" + std::to_string(b.value));
    intent.cgroup_parents[b.controller] = b.parent_dir;
  }
  intent.not_enforced = plan.not_enforced;
  if (plan.wall_clock_seconds > 0)
    intent.values.push_back("wall_clock_seconds=" + std::to_string(plan.wall_clock_seconds));
  return intent;
}

}  // namespace cordon
