// The session file's content (common/intent.h) from the planned sections: what the launcher
// means to enforce, stated before any test weakening touches a section, so that the battery
// can compare what it finds against it.
#pragma once

#include <string>
#include <vector>

#include "common/intent.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/section/section.h"
#include "launcher/workspace/workspace_plan.h"

namespace cordon {

// The configuration, profile, home, workspace, filesystem and environment parts of the intent;
// the network, budgets and terminal add theirs from their sections.
SessionIntent describe_session(const Config& config, const AgentProfile& profile, const HostFacts& facts,
                               const WorkspaceSection& workspace, const EnvList& env,
                               const std::vector<std::string>& writable);

}  // namespace cordon
