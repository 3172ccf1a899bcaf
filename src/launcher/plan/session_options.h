// What the command line asks of one session (run, argv, verify, status), and the three steps
// every such command shares before anything is launched: gather host facts, build the plan
// (with test weakenings applied).
#pragma once

#include <string>
#include <vector>

#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/plan/plan.h"

namespace cordon {

struct SessionOptions {
  std::string workspace;
  std::string agent;
  std::vector<std::string> command;
  std::vector<std::string> weaken;  // test hooks only
  std::vector<std::string> limits;  // --limit NAME=VALUE
  std::string network;              // --network MODE: may only narrow [network] mode
  std::vector<std::string> allow;   // --allow RULE: within [network] user_allow, allowlist only
  bool json = false;
  bool filter_output = false;   // run --filter-output: [terminal] filter_pipes for this run
  bool scratch = false;         // run --scratch: a fresh empty workspace (workspace/scratch.h)
  bool review = false;          // --review: [workspace] mode = "review" for this run (never back to direct)
  bool discard_review = false;  // verify's own launches: their review layers are removed at the end
};

// Applies `--network MODE` to the configuration: the mode must be as narrow as the
// configured one or narrower (host < jail < allowlist < offline). Throws cordon::Error (exit 2)
// for an unknown or a wider mode.
void narrow_network_mode(Config& config, const std::string& flag);

// Applies `--review`: the run's workspace becomes a review overlay. A run may move from direct
// to review, never back (there is no flag for it).
void apply_review_flag(Config& config, bool review);

// Applies `--allow RULE` (after --network): each rule must parse, the mode must be allowlist,
// and the rule must lie within a [network] user_allow pattern (common/egress_rules.h
// rule_within); it is then added to [network] allow and to run_allow, which the manifest
// records. Throws cordon::Error (exit 2) naming the rule, the patterns and the file.
void widen_allowlist_for_run(Config& config, const std::vector<std::string>& rules);

// The host facts a session of this configuration is planned from (the network's when its mode
// reads the host's network: netlink dumps and /etc/resolv.conf, nothing is sent).
HostFacts facts_for(const Config& config, const SessionOptions& options);

// The plan, with the test weakenings applied to its sections (plan/weaken.h).
SandboxPlan plan_for(const Config& config, const HostFacts& facts, const SessionOptions& options);

}  // namespace cordon
