// The sandbox plan: everything `cordon run` will do, computed without doing any of it.
// Each mechanism plans its own section (plan_sections); the assembler orders the sections into
// bwrap's argv, the generated files and the descriptors (assemble_plan). Both are pure, so
// tests assert the exact bwrap vector without launching anything.
#pragma once

#include <string>
#include <vector>

#include "common/intent.h"
#include "launcher/budgets/limits.h"
#include "launcher/env/env.h"
#include "launcher/fs/mounts.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/isolation/isolation.h"
#include "launcher/landlock/ruleset_plan.h"
#include "launcher/network/network_plan.h"
#include "launcher/plan/command.h"
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

// Every mechanism's section, planned and not yet assembled: test weakenings act here
// (plan/weaken.h), after the session file's content was stated from them.
struct SandboxSections {
  std::string bwrap;                 // the bwrap binary
  std::string agent;                 // the active profile's name
  std::vector<std::string> command;  // what bwrap runs, the profile's args inserted
  IsolationSection isolation;
  network::NetworkPlan network;
  EnvList env;  // the host's allowed variables, then cordon's own and the network mode's
  WorkspaceSection workspace;
  FilesystemSection filesystem;
  std::string gitconfig;  // the sandbox's git config (/run/cordon/gitconfig)
  // Where a resolv.conf of the network mode's is bound: where the host's really lives (its /run
  // target when /etc/resolv.conf links there), over the host's copy.
  std::string resolv_conf_dest;
  LimitPlan limits;
  TerminalSection terminal;
  // The second filesystem layer, made from `filesystem` as planned (before any weakening), and
  // the step inside the sandbox that applies it before the command (libexec/cordon-landlock).
  landlock::LandlockSection landlock;
  std::string landlock_helper;
  SessionIntent intent;  // what the session file states: the sections as planned
};

struct SandboxPlan {
  std::vector<std::string> argv;       // argv[0] is the bwrap binary
  std::vector<std::string> command;    // what bwrap runs: argv after its "--"
  std::vector<DataFile> data_files;    // materialised as sealed memfds
  std::vector<BoundPath> bound_paths;  // opened and checked by the launcher, bound by descriptor
  IsolationSection isolation;          // the filter compiled to BPF at kSeccompFd, the session's init
  EnvList env;
  std::vector<std::string> writable;             // host paths bound read-write
  std::vector<PermissionRoot> permission_roots;  // tightened after the session (fs/loose_permissions.h)
  std::string workspace;
  std::string chdir;
  std::string agent;
  SessionIntent intent;  // what the session file states (common/intent.h)
  LimitPlan limits;
  TerminalPlan terminal;
  // bwrap's child waits at kCommandGateFd (--block-fd) for the launcher's word: with the jail,
  // whose routes are programmed while bwrap sets up. Only with the session's pid namespace,
  // whose init keeps the gate shut until the whole session is dead (process/session_init.h).
  bool command_gate = false;
  landlock::LandlockSection landlock;  // applied by cordon-landlock in front of the command when `apply`
  network::NetworkPlan network;        // the mode's plan: its launch stage is made from it (network/)
  WorkspaceSection workspace_plan;     // the workspace's section (its footholds are made at launch)
};

// Throws cordon::Error (what + fix) when the request cannot be planned safely. Pure: the host
// was read into `facts` (the network's and the workspace's included) before.
SandboxSections plan_sections(const Config& config, const HostFacts& facts, const LaunchRequest& request);

// bwrap's argv in the order bwrap applies it, the generated files and their descriptors.
SandboxPlan assemble_plan(SandboxSections sections);

// plan_sections, then assemble_plan.
SandboxPlan build_plan(const Config& config, const HostFacts& facts, const LaunchRequest& request);

}  // namespace cordon
