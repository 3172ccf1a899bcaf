// What closes a session when its launcher cannot: a small process forked before the session's
// state file exists, which waits on a pipe only the launcher writes. Dismissed when the launcher
// has written the receipt, it exits. When the launcher dies first (SIGKILL, a crash, its whole
// process group killed), the pipe reads end-of-file, and the keeper sweeps that session at
// once, as `cordon sessions gc` would (record/sweep.h): the agent's control keys restored, the
// footholds quarantined, loosened permissions tightened, the session's cgroups removed, the
// record closed as crashed. In its own session and process group (setsid), so a signal to the
// launcher's group does not reach it; it holds no descriptor of the session (not the state
// file's lock, not the terminal), so it cannot keep anything alive or open. Its sweep runs in
// a Landlock domain that writes only what the sweep writes (record/sweep_reach.h). The next launch
// and `cordon sessions gc` stay the second line, for a keeper killed too.
#pragma once

#include <sys/types.h>

#include <string>

#include "launcher/process/keeper_process.h"
#include "launcher/record/record_export.h"
#include "launcher/record/sweep_reach.h"

namespace cordon {

class SessionKeeper {
 public:
  // Throws cordon::Error when it cannot be started (the launch then stops: no session runs
  // without its keeper). Its sweep writes only beneath `reach` (record/sweep_reach.h).
  // The crashed session's receipt also goes to `exporter` ([records] export; not stderr, which
  // the keeper does not hold).
  SessionKeeper(const std::string& sessions_dir, const std::string& id, const SweepReach& reach,
                const RecordExport& exporter);
  // Not dismissed (an exception left the session before its receipt): the keeper is let go and
  // sweeps the session once this launcher lets go of its state file.
  ~SessionKeeper();
  SessionKeeper(const SessionKeeper&) = delete;
  SessionKeeper& operator=(const SessionKeeper&) = delete;

  // The receipt is written: the keeper exits without sweeping; reaped here.
  void dismiss();
  pid_t pid() const { return process_.pid(); }

 private:
  KeeperProcess process_;  // spared by the launcher's reaping of survivors (process/spared_children.h)
};

}  // namespace cordon
