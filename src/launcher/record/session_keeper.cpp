#include "launcher/record/session_keeper.h"

#include "launcher/process/spared_children.h"
#include "launcher/record/sweep.h"

namespace cordon {
namespace {

// How long the keeper waits for the session's last processes (bwrap, the session's init) to
// let go of the state file after the launcher died: they follow it within milliseconds.
constexpr int kLockWaitMs = 3000;

}  // namespace

SessionKeeper::SessionKeeper(const std::string& sessions_dir, const std::string& id, const SweepReach& reach,
                             const RecordExport& exporter)
    : process_(
          "cordon-keeper", "the session keeper", {},
          // The launcher died without its receipt: the session, swept as `sessions gc` would.
          [sessions_dir, id, exporter] { sweep_session(sessions_dir, id, kLockWaitMs, &exporter); },
          session_keeper_confinement(reach.grants, reach.signal_scope)) {
  // The launcher's child, reaped here (so that no PID 1 above cordon collects it as a
  // zombie); the reaping of what the sandbox leaves behind passes over it.
  spare_child(process_.pid());
}

void SessionKeeper::dismiss() {
  const pid_t pid = process_.pid();
  process_.dismiss();
  unspare_child(pid);
}

// Not dismissed: closing the write end is the launcher's death as far as the keeper can tell.
// It waits for this launcher to let go of the state file, so it is not waited for here.
SessionKeeper::~SessionKeeper() { unspare_child(process_.pid()); }

}  // namespace cordon
