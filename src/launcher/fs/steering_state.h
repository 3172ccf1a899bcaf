// Memory an agent loads into its later sessions (common/agent_control.h shipped_steering_state)
// is state by design: the agent writes it as it works, so it stays read-write. Yet what a
// session writes there steers every later session of that agent, inside cordon or not. At
// launch the entries below each pattern are listed (device, inode, size, ctime: a process
// cannot set a ctime back) in the session's own file in the state directory (0600); after the
// session (and at the sweep of a crashed one) every file, link or other non-directory that was
// added, changed or removed is named in the receipt's home audit and on stderr. Nothing is
// undone: it is the agent's state, for the operator to review. Nothing is followed.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "launcher/section/teardown_audit.h"

namespace cordon {

// One non-directory below a pattern, as lstat(2) sees it.
struct SteeringEntry {
  unsigned long long device = 0, inode = 0;
  long long size = 0, ctime_ns = 0;
  unsigned mode = 0;  // the whole st_mode: a file made a link is a change
  bool operator==(const SteeringEntry&) const = default;
};

struct SteeringListing {
  std::map<std::string, SteeringEntry> entries;  // by path relative to the home
  bool complete = true;                          // false: stopped at kMaxSteeringEntries
};

// At most this many entries are listed below all patterns together.
inline constexpr size_t kMaxSteeringEntries = 20000;

// The non-directories below each of `patterns` (relative to `home`, "*" a directory at that
// level); a pattern's own match that is not a directory (a link the session may have made) is
// an entry itself.
SteeringListing list_steering_state(const std::string& home, const std::vector<std::string>& patterns);

// What changed between two listings, as audit items of kind "steering-state" whose detail is
// "added", "changed" or "removed" (path absolute, under `home`).
FootholdAudit steering_changes(const std::string& home, const SteeringListing& before, const SteeringListing& after);

// At launch: the listing for `agent`'s patterns under `home`; "" or a problem (the launch goes
// on: the teardown then has nothing to compare).
std::string snapshot_steering_state(const std::string& sessions_dir, const std::string& id, const std::string& home,
                                    const std::string& agent);

// After the session: lists again, compares, removes the snapshot.
FootholdAudit report_steering_changes(const std::string& sessions_dir, const std::string& id);

// The stderr line of one item, without "cordon: ".
std::string steering_state_line(const AuditItem& item);

}  // namespace cordon
