// The environment half of the plan: --clearenv, then only allow-listed names.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"

namespace cordon {

using EnvList = std::vector<std::pair<std::string, std::string>>;

// Names always allowed through (a trailing '*' is a prefix pattern).
const std::vector<std::string>& base_env_allow_list();

// True when `name` matches `pattern` (exact, or prefix when the pattern ends in '*').
bool env_name_matches(const std::string& pattern, const std::string& name);

// The sandbox environment: allow-listed host variables (deny list wins), then the values
// cordon sets itself (HOME, IS_SANDBOX, git config), in a stable order.
EnvList plan_environment(const Config& config, const AgentProfile& profile, const HostFacts& facts);

}  // namespace cordon
