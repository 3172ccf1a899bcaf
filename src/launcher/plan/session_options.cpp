#include "launcher/plan/session_options.h"

#include "common/error.h"
#include "launcher/plan/weaken.h"
#include "launcher/workspace/workspace_plan.h"

namespace cordon {
namespace {

LaunchRequest request_for(const Config& config, const SessionOptions& o) {
  return LaunchRequest{o.workspace, o.agent, o.command, config.source.file, o.limits};
}

}  // namespace

void narrow_network_mode(Config& config, const std::string& flag) {
  if (flag.empty()) return;
  auto mode = network_mode_from_config_name(flag);
  if (!mode)
    throw Error("--network " + flag + ": not one of " + network_mode_config_names(), "for example --network offline",
                kExitConfigError);
  if (!narrower_or_equal(*mode, config.network.mode))
    throw Error("--network " + flag + " would widen the configured network.mode = \"" +
                    network_mode_config_name(config.network.mode) +
                    "\": a run may only narrow it (host < jail < "
                    "allowlist < offline)",
                "ask the operator to change [network] mode in " + config.source.file, kExitConfigError);
  config.network.mode = *mode;
}

HostFacts facts_for(const Config& config, const SessionOptions& o) {
  HostFacts facts = gather_host_facts(config, request_for(config, o));
  facts.workspace_tree = snapshot_workspace_tree(facts.workspace, config.workspace.protect);
  if (network::needs_network_facts(config.network)) facts.network = gather_network_facts();
  return facts;
}

SandboxPlan plan_for(const Config& config, const HostFacts& facts, const SessionOptions& o) {
  SandboxSections sections = plan_sections(config, facts, request_for(config, o));
  for (const auto& name : o.weaken) weaken_sections(sections, name);
  return assemble_plan(std::move(sections));
}

}  // namespace cordon
