#include "launcher/plan/session_options.h"

#include <algorithm>

#include "common/egress_rules.h"
#include "common/error.h"
#include "common/text.h"
#include "launcher/plan/weaken.h"
#include "launcher/workspace/workspace_plan.h"

namespace cordon {
namespace {

LaunchRequest request_for(const Config& config, const SessionOptions& o) {
  return LaunchRequest{o.workspace, o.agent, o.command, config.source.file, o.limits};
}

// A refused rule without a port admits more ports than a pattern naming one: say so, with the
// rule that would fit ("" when no pattern would take it with its port).
std::string port_hint(const EgressRule& rule, const std::string& text, const std::vector<std::string>& user_allow) {
  if (rule.port) return "";
  for (const auto& p : user_allow) {
    const EgressRule pattern = parse_egress_rule(p);
    EgressRule with_port = rule;
    with_port.port = pattern.port;
    if (with_port.port && rule_within(with_port, pattern))
      return "; it names no port, and the pattern " + p + " does: --allow " + terminal_safe(text) + ":" +
             std::to_string(*with_port.port) + " is within it";
  }
  return "";
}

}  // namespace

void apply_review_flag(Config& config, bool review) {
  if (review) config.workspace.mode = WorkspaceMode::Review;
}

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

void widen_allowlist_for_run(Config& config, const std::vector<std::string>& rules) {
  if (rules.empty()) return;
  const std::string file = config.source.file;
  if (config.network.mode != NetworkMode::Allowlist)
    throw Error("--allow adds to the allow-list of network.mode = \"allowlist\"; this run's mode is \"" +
                    std::string(network_mode_config_name(config.network.mode)) + "\"",
                "add --network allowlist (when the configured mode allows it), or drop --allow", kExitConfigError);
  std::string patterns;
  for (const auto& p : config.network.user_allow) patterns += (patterns.empty() ? "" : ", ") + p;
  for (const auto& text : rules) {
    const EgressRule rule = parse_egress_rule(text, "--allow");
    const bool within = std::any_of(config.network.user_allow.begin(), config.network.user_allow.end(),
                                    [&](const std::string& p) { return rule_within(rule, parse_egress_rule(p)); });
    if (!within)
      throw Error("--allow " + terminal_safe(text) + " is not within [network] user_allow (" +
                      (patterns.empty() ? std::string("empty: no run may add a rule") : patterns) + ")" +
                      port_hint(rule, text, config.network.user_allow),
                  "ask the operator to add a pattern covering it to [network] user_allow, or the rule itself to "
                  "[network] allow, in " +
                      file,
                  kExitConfigError);
    config.network.allow.push_back(text);
    config.network.run_allow.push_back(text);
  }
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
