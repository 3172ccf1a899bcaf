#include "launcher/plan/session_options.h"

#include "common/error.h"
#include "launcher/plan/weaken.h"

namespace cordon {
namespace {

LaunchRequest request_for(const Config& config, const SessionOptions& o) {
  return LaunchRequest{o.workspace, o.agent, o.command, config.source_path, o.limits};
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
                "ask the operator to change [network] mode in " + config.source_path, kExitConfigError);
  config.network.mode = *mode;
}

HostFacts facts_for(const Config& config, const SessionOptions& o) {
  return gather_host_facts(config, request_for(config, o));
}

std::optional<jail::JailPlan> jail_plan_for(const Config& config) {
  if (config.network.mode != NetworkMode::EgressJail) return std::nullopt;
  return jail::plan_jail(config, jail::gather_network_facts());
}

SandboxPlan plan_for(const Config& config, const HostFacts& facts, const SessionOptions& o,
                     const jail::JailPlan* jail) {
  SandboxPlan plan = build_plan(config, facts, request_for(config, o), jail);
  for (const auto& name : o.weaken) apply_weakening(plan, name);
  return plan;
}

}  // namespace cordon
