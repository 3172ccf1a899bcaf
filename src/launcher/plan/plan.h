// The sandbox plan: everything `cordon run` will do, computed without doing any of it.
// `build_plan` is pure, so tests assert the exact bwrap vector without launching anything.
#pragma once

#include <string>
#include <vector>

#include "common/intent.h"
#include "launcher/budgets/limits.h"
#include "launcher/env/env.h"
#include "launcher/fs/mounts.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/network/network_plan.h"
#include "launcher/seccomp/policy.h"
#include "launcher/terminal/terminal_plan.h"
#include "launcher/workspace/workspace_plan.h"

namespace cordon {

// File descriptors are planned, not discovered: the launcher places each generated file at
// exactly this number in the bwrap child, so `cordon argv` prints the real invocation.
// bwrap reports through kStatusFd whether the command itself started and how it ended.
// bwrap's child waits at kCommandGateFd (--block-fd) when a launch stage finishes after bwrap
// has started (the egress jail's routes): the command starts only once the launcher writes.
inline constexpr int kCommandGateFd = 8;
inline constexpr int kStatusFd = 9;
inline constexpr int kSeccompFd = 10;
inline constexpr int kFirstDataFd = 11;

struct SandboxPlan {
  std::vector<std::string> argv;       // argv[0] is the bwrap binary
  std::vector<std::string> command;    // what bwrap runs: argv after its "--"
  std::vector<DataFile> data_files;    // materialised as sealed memfds
  std::vector<BoundPath> bound_paths;  // opened and checked by the launcher, bound by descriptor
  seccomp::PolicyOptions seccomp;      // compiled to BPF at kSeccompFd
  EnvList env;
  std::vector<std::string> writable;  // host paths bound read-write
  std::string workspace;
  std::string chdir;
  std::string agent;
  SessionIntent intent;  // what the session file states (common/intent.h)
  LimitPlan limits;
  TerminalPlan terminal;
  // Test hooks only (launcher/weaken.h): defences a weakened sandbox leaves out.
  bool inherit_environment = false;  // hand the launcher's environment to bwrap
  bool skip_seccomp = false;         // no filter at kSeccompFd
  // bwrap forked directly, without the session's pid namespace: a test hook, and proc = "host-ro"
  // (the host's /proc, bound in, must be the host's, not the session namespace's; that weaker
  // mode keeps bwrap's --die-with-parent as the only tie between the sandbox and the launcher).
  bool skip_session_init = false;
  // bwrap's child waits at kCommandGateFd (--block-fd) for the launcher's word: with the jail,
  // whose routes are programmed while bwrap sets up. Only with the session's pid namespace,
  // whose init keeps the gate shut until the whole session is dead (process/session_init.h).
  bool command_gate = false;
  network::NetworkPlan network;     // the mode's plan: its launch stage is made from it (network/)
  WorkspaceSection workspace_plan;  // the workspace's section (its footholds are made at launch)
};

// Every mechanism's section, planned and not yet assembled: test weakenings act here
// (plan/weaken.h), and the session file states what was planned before any of them.
struct SandboxSections {
  const AgentProfile* profile = nullptr;  // the active profile (in the Config planned from)
  std::vector<std::string> command;       // what bwrap runs, the profile's args inserted
  bool agent_args = false;                // whether they were
  network::NetworkPlan network;
  EnvList env;            // the host's allowed variables and cordon's own (the network's are added at assembly)
  std::string gitconfig;  // the sandbox's git config (/run/cordon/gitconfig)
  LimitPlan limits;
  LimitsIntent limits_intent;  // the budgets as planned (a weakening leaves them stated)
  TerminalSection terminal;
  bool skip_session_init = false;  // proc = "host-ro": the host's /proc stays the host's
  WorkspaceSection workspace;
};

// Throws cordon::Error (what + fix) when the request cannot be planned safely. Pure: the host
// was read into `facts` (the network's included) before.
SandboxSections plan_sections(const Config& config, const HostFacts& facts, const LaunchRequest& request);

// bwrap's argv in the order bwrap applies it, the generated files and the descriptors, from the
// sections (and the filesystem's mounts, planned here from the configuration and the facts).
SandboxPlan assemble_plan(const Config& config, const HostFacts& facts, SandboxSections sections);

// plan_sections, then assemble_plan.
SandboxPlan build_plan(const Config& config, const HostFacts& facts, const LaunchRequest& request);

// True when `command` runs `profile`'s agent: its program is named like the profile, or is
// the profile's binary. The profile's args then follow the program name.
bool runs_the_agent(const AgentProfile& profile, const HostFacts& facts, const std::vector<std::string>& command);

// The command to run: the request's command, or the agent's binary when none was given.
std::vector<std::string> resolve_command(const AgentProfile& profile, const HostFacts& facts,
                                         const LaunchRequest& request);

}  // namespace cordon
