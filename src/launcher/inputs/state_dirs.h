// Where cordon keeps its state outside every sandbox: the session records, the outcome of the
// last `cordon verify`, the tool-version cache. Derived from the user's identity, never from
// the workspace.
#pragma once

#include <sys/types.h>

#include <string>

namespace cordon {

// root: /var/lib/cordon/sessions; others: $XDG_STATE_HOME/cordon/sessions (when absolute and
// outside the workspace), else ~/.local/state/cordon/sessions. `xdg_state_home` may be null.
std::string sessions_dir(uid_t uid, const std::string& home, const std::string* xdg_state_home,
                         const std::string& workspace);

// The directory holding the session records, where cordon keeps the rest of its state
// (caches/, quarantine/): "/var/lib/cordon" for "/var/lib/cordon/sessions".
std::string state_dir_of(const std::string& sessions_dir);

// The outcome of the latest `cordon verify`, kept next to the session records (one line,
// replaced whole, as is the next).
void record_last_verify(const std::string& sessions_dir, int battery_exit_code);
std::string read_last_verify(const std::string& sessions_dir);

// The latest allowlist session's proxy counts (`counts` from proxy::egress_counts_text), kept
// next to the session records as "COUNTS; session ID, ended TIME"; replaced whole (a rename),
// so a reader never sees half of one session's line and half of another's.
void record_last_egress(const std::string& sessions_dir, const std::string& session_id, const std::string& counts);
std::string read_last_egress(const std::string& sessions_dir);

// The cache of tool versions (bwrap, pasta) next to the session records.
std::string tool_versions_cache(const std::string& sessions_dir);

}  // namespace cordon
