// The command a session runs: the one given after `--`, or the profile's agent binary, with
// the profile's own arguments after the program name when it runs that agent.
#pragma once

#include <string>
#include <vector>

#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"

namespace cordon {

// True when `command` runs `profile`'s agent: its program is named like the profile, or is
// the profile's binary. The profile's args then follow the program name.
bool runs_the_agent(const AgentProfile& profile, const HostFacts& facts, const std::vector<std::string>& command);

// The command to run: the request's command, or the agent's binary when none was given.
// Throws cordon::Error when there is neither.
std::vector<std::string> resolve_command(const AgentProfile& profile, const HostFacts& facts,
                                         const LaunchRequest& request);

}  // namespace cordon
