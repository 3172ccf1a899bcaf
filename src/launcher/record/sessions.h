// `cordon sessions list | show ID | gc | prune`: reading and tending the records the launcher
// wrote. Every record is read through record_file (regular files only, bounded, never
// blocking); what reaches a terminal is terminal_safe.
#pragma once

#include <string>

#include "launcher/record/record_export.h"

namespace cordon {

// One row per record: SESSION STATE EXIT AGENT WORKSPACE, or one JSON document
// ("cordon-sessions") with `json`.
int print_sessions_list(const std::string& dir, bool json);

// One JSON document ("cordon-session"): the state, the manifest and the receipt (null until
// the session has ended).
int print_session(const std::string& dir, const std::string& id);

// Sweeps crashed sessions (record/sweep) and prints what it did.
int run_sessions_gc(const std::string& dir, const RecordExport& exporter);

// Applies the retention now and prints the ids it removed.
int run_sessions_prune(const std::string& dir, long long keep, long long keep_days);

}  // namespace cordon
