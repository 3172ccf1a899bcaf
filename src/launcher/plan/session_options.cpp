#include "launcher/plan/session_options.h"

#include "launcher/plan/weaken.h"

namespace cordon {
namespace {

LaunchRequest request_for(const Config& config, const SessionOptions& o) {
  return LaunchRequest{o.workspace, o.agent, o.command, config.source_path, o.limits};
}

}  // namespace

HostFacts facts_for(const Config& config, const SessionOptions& o) {
  return gather_host_facts(config, request_for(config, o));
}

std::optional<jail::JailPlan> jail_plan_for(const Config& config) {
  if (!config.egress_jail) return std::nullopt;
  return jail::plan_jail(config, jail::gather_network_facts());
}

SandboxPlan plan_for(const Config& config, const HostFacts& facts, const SessionOptions& o,
                     const jail::JailPlan* jail) {
  SandboxPlan plan = build_plan(config, facts, request_for(config, o), jail);
  for (const auto& name : o.weaken) apply_weakening(plan, name);
  return plan;
}

}  // namespace cordon
