// Where the session keeper's sweep (record/sweep.h) may write, from the launch's own plan: the
// keeper's Landlock grants (process/keeper_process.h session_keeper_confinement). Made by the
// launcher before the session starts, from what it planned, never from anything the session
// could write; a path absent when the keeper enters its domain is skipped.
#pragma once

#include <string>
#include <vector>

#include "common/landlock_helper.h"
#include "launcher/plan/plan.h"

namespace cordon {

struct SweepReach {
  std::vector<landlock::PathGrant> grants;
  // No member of a v1 cgroup to kill by pid: the keeper may take Landlock's signal scope.
  bool signal_scope = true;
};

// What the sweep writes, by step:
// - the state directory (records, state files, the quarantine of home files): any write;
// - the workspace (footholds moved to its quarantine, configs rewritten): any write;
// - the parents of the session's cgroups (its cgroups emptied and removed): any write;
// - pasta's temp dir (its FIFO removed) and /tmp (the dir removed): removal only;
// - the directories of the agent's control files in `home` (put back through a file renamed
//   over them, or what was planted removed): regular files made, written, removed.
// - [records] export's file or FIFO (the crashed session's receipt appended): written.
// Nothing of it makes a link or a device, and nothing executes.
SweepReach sweep_reach(const std::string& sessions_dir, const std::string& id, const std::string& home,
                       const SandboxPlan& plan, const RecordExportTarget& export_to = {});

}  // namespace cordon
