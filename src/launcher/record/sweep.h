// After a launcher died without finishing its session (SIGKILL, a crash, a power cut): finding
// such sessions, sweeping what they left and closing their records; and bounding the records
// directory. Safe against concurrent launches and sweepers: a session is only touched while
// its state file's lock is held, which the kernel grants only once its launcher is gone.
#pragma once

#include <string>
#include <vector>

#include "launcher/record/record_export.h"

namespace cordon {

struct SweepReport {
  std::vector<std::string> lines;  // one per session swept: what was found and removed
  int swept = 0;
  int problems = 0;  // leftovers that could not be removed (named in `lines`)
};

// Sessions in `dir` whose launcher is gone without a receipt: their cgroups are emptied and
// removed, pasta's temp dir is removed, a receipt saying "crashed" (or, when the launcher
// could only leave a note, the exit status it noted) is appended, the state file removed.
// Each receipt written also goes to `exporter` when given ([records] export).
SweepReport sweep_crashed_sessions(const std::string& dir, const RecordExport* exporter = nullptr);

// Sweeps the one session `id` as sweep_crashed_sessions would, once its state file's lock is
// free (its launcher and the session's last processes gone), waiting for that at most
// `wait_ms`. The report is empty when the session is not there, is complete, or stayed locked.
SweepReport sweep_session(const std::string& dir, const std::string& id, int wait_ms,
                          const RecordExport* exporter = nullptr);

// The ids of sessions a sweep would close, without sweeping (for `cordon doctor`).
std::vector<std::string> crashed_session_ids(const std::string& dir);

// Launches prune at most this often (the listing of a full records directory costs more than
// the rest of the launcher's work); `cordon sessions prune` prunes at once.
inline constexpr long long kPruneIntervalSeconds = 3600;

// True when the last prune at launch was over kPruneIntervalSeconds ago (or never): then it
// marks now as the last one ("<dir>/../last-prune").
bool prune_due(const std::string& dir);

// Removes the oldest ended records beyond `keep`, and those older than `keep_days` days (0: no
// age bound). A record with a state file (running, or crashed and not swept) is never removed.
// Nor is one with a review (STATE/reviews/ID, review mode): its changes wait for a person's
// `cordon apply` or `cordon discard`; such ids go to *kept_for_review. Returns the removed ids.
std::vector<std::string> prune_records(const std::string& dir, long long keep, long long keep_days,
                                       std::vector<std::string>* kept_for_review = nullptr);

}  // namespace cordon
