#include "launcher/env/env.h"

#include <algorithm>

#include "common/intent.h"

namespace cordon {

EnvList plan_environment(const EnvironmentConfig& config, const AgentProfile& profile, const HostFacts& facts,
                         const EnvList& mode_env) {
  auto any_match = [](const std::vector<std::string>& patterns, const std::string& name) {
    return std::any_of(patterns.begin(), patterns.end(),
                       [&](const std::string& p) { return env_name_matches(p, name); });
  };
  // Values cordon sets itself; a host variable of the same name never overrides them.
  EnvList fixed = {
      {"HOME", facts.home},
      {"IS_SANDBOX", "1"},
      {"GIT_CONFIG_GLOBAL", kGitConfigPath},
      {"GIT_CONFIG_SYSTEM", "/dev/null"},
  };
  // The network mode's own (network/network_plan.h: the allowlist's proxy variables).
  fixed.insert(fixed.end(), mode_env.begin(), mode_env.end());
  auto is_fixed = [&](const std::string& name) {
    return std::any_of(fixed.begin(), fixed.end(), [&](const auto& kv) { return kv.first == name; });
  };

  EnvList out;
  for (const auto& [name, value] : facts.env) {
    bool allowed = any_match(base_env_allow_list(), name) || any_match(config.allow, name) ||
                   any_match(profile.env, name);
    if (!allowed || any_match(config.deny, name) || is_fixed(name)) continue;
    out.emplace_back(name, value);
  }
  if (!facts.env_value("PATH")) out.emplace_back("PATH", "/usr/local/bin:/usr/bin:/bin");
  if (!facts.env_value("USER")) out.emplace_back("USER", facts.user);
  std::sort(out.begin(), out.end());
  out.insert(out.end(), fixed.begin(), fixed.end());
  return out;
}

std::vector<std::string> dropped_configuration_names(const HostFacts& facts, const EnvList& passed) {
  std::vector<std::string> dropped;
  for (const auto& [name, value] : facts.env) {
    if (!configuration_env_name(name)) continue;
    bool in = false;
    for (const auto& [passed_name, passed_value] : passed) in = in || passed_name == name;
    if (!in) dropped.push_back(name);
  }
  std::sort(dropped.begin(), dropped.end());
  return dropped;
}

}  // namespace cordon
