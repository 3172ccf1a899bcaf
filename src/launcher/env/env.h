// The environment half of the plan: --clearenv, then only allow-listed names.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/env_names.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/section/section.h"

namespace cordon {

// base_env_allow_list() and env_name_matches() come from common/env_names.h.

// The sandbox environment: allow-listed host variables (deny list wins), then the values
// cordon sets itself (HOME, IS_SANDBOX, git config) and `mode_env`, the network mode's own
// values (the allowlist's proxy variables), which no host variable of the same name overrides.
EnvList plan_environment(const EnvironmentConfig& config, const AgentProfile& profile, const HostFacts& facts,
                         const EnvList& mode_env);

// The host's proxy, CA and agent configuration variables (configuration_env_name) that
// `passed` leaves out, by name, sorted.
std::vector<std::string> dropped_configuration_names(const HostFacts& facts, const EnvList& passed);

}  // namespace cordon
