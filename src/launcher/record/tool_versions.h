// Versions of the programs a launch depends on, for the manifest. Asking bwrap for its
// version costs a process per launch, so answers are cached per binary (path, size, mtime).
#pragma once

#include <string>

#include "launcher/inputs/host_facts.h"
#include "launcher/plan/plan.h"

namespace cordon {

struct ToolVersions {
  std::string cordon;
  std::string bwrap;
  std::string pasta;  // "" when the launch does not use pasta
};

ToolVersions tool_versions(const HostFacts& facts, const SandboxPlan& plan);

}  // namespace cordon
