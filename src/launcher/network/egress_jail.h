// The egress jail as a launch stage: the forked holder enters a new user + network
// namespace, the launcher attaches pasta to it by PID, the routes are programmed and verified
// in it, and only then may the command start (bwrap nests its own user namespace and keeps
// this network). After the sandbox exits, pasta is ended and the teardown is verified.
//
//   launcher (parent)                   holder (forked child)          route programmer
//   check prerequisites, make pipes
//   fork ------------------------------> unshare(USER|NET), map ids
//   wait "N" <-------------------------- "N" namespaces ready; fork --> (same namespaces)
//   pasta --config-net ... PID           exec bwrap: it sets up the
//     (returns when configured)            sandbox, then waits at the
//   "G" ----------------------------------------------------------------> flush, program,
//   wait "R" <----------------------------------------------------------- read back: "R"
//   open the command gate -------------> bwrap's child runs the command
//   ... sandbox runs ...
//   after exit: end and reap pasta, check no process is left in the namespace
//
// The command gate is bwrap's --block-fd (run/sandbox.cpp): the command cannot start before
// "R". Without it (no session pid namespace: see process/session_init.h, which makes the gate
// fail closed) the holder programs the routes itself and execs bwrap only after "R".
//
// pasta is the launcher's child and dies with it (see pasta.h); the holder, its programmer
// and bwrap die with it too (PR_SET_PDEATHSIG).
//
// Every wait is bounded; every failure refuses the launch (nothing runs). There is no
// fallback to the host network.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "common/unique_fd.h"
#include "launcher/inputs/config.h"
#include "launcher/network/jail_plan.h"
#include "launcher/network/pasta.h"
#include "launcher/process/launch_stage.h"

namespace cordon::jail {

// Checked in the launcher before anything forks: pasta installed (fixed paths, no $PATH),
// /dev/net/tun a usable tun device, user namespaces enabled. Returns pasta's path. Throws
// cordon::Error naming the fix and the explicit opt-out in the configuration file.
std::string check_jail_prerequisites(const std::string& config_path);

class EgressJail : public LaunchStage {
 public:
  // Creates the synchronisation pipes. `pasta_path` comes from check_jail_prerequisites(),
  // which the caller runs first; `session_id` names pasta's temp dir (a crash sweep finds it).
  EgressJail(JailPlan plan, std::string pasta_path, std::string session_id);
  ~EgressJail() override;
  EgressJail(const EgressJail&) = delete;
  EgressJail& operator=(const EgressJail&) = delete;

  void in_child(const ChildSide& side) override;
  void after_fork(pid_t child) override;
  void after_exit() override;

  const JailPlan& plan() const { return plan_; }

 private:
  // In the holder or its programmer: waits for "G", programs and verifies the routes, "R".
  void program_after_go();

  JailPlan plan_;
  std::string pasta_path_;
  std::string session_id_;
  uid_t uid_;
  gid_t gid_;
  UniqueFd to_child_read_, to_child_write_;    // launcher -> holder: "G"
  UniqueFd to_parent_read_, to_parent_write_;  // holder -> launcher: "N", "R"
  std::unique_ptr<Pasta> pasta_;               // attached in after_fork, ended in after_exit
  dev_t netns_dev_ = 0;                        // the holder's network namespace, to check
  ino_t netns_ino_ = 0;                        // at teardown that nothing still uses it
};

}  // namespace cordon::jail
