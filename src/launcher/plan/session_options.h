// What the command line asks of one session (run, argv, verify, status), and the three steps
// every such command shares before anything is launched: gather host facts, plan the egress
// jail when the configuration turns it on, build the plan (with test weakenings applied).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/jail/plan.h"
#include "launcher/plan/plan.h"

namespace cordon {

struct SessionOptions {
  std::string workspace;
  std::string agent;
  std::vector<std::string> command;
  std::vector<std::string> weaken;  // test hooks only
  std::vector<std::string> limits;  // --limit NAME=VALUE
  std::string network;              // --network MODE: may only narrow [network] mode
  bool json = false;
};

// Applies `--network MODE` to the configuration: the mode must be as narrow as the
// configured one or narrower (host < jail < allowlist < offline). Throws cordon::Error (exit 2)
// for an unknown or a wider mode.
void narrow_network_mode(Config& config, const std::string& flag);

HostFacts facts_for(const Config& config, const SessionOptions& options);

// The egress jail's plan when the configuration turns the jail on (nullopt when off).
// Gathering the network facts reads netlink dumps and /etc/resolv.conf: nothing is sent.
std::optional<jail::JailPlan> jail_plan_for(const Config& config);

SandboxPlan plan_for(const Config& config, const HostFacts& facts, const SessionOptions& options,
                     const jail::JailPlan* jail = nullptr);

}  // namespace cordon
