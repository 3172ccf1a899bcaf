// `cordon verify [--deep] [-v] [--json]`: launch a sandbox like `run` with cordon-battery as
// its command; with --deep and every check passing, launch again with cordon-probe against
// bait the launcher sets up outside. The report shows what needs a look (FAIL, ESCAPED and
// INCONCLUSIVE rows) and the summaries; -v every row; --json one document for both helpers
// (commands/verify_document.h). Exit status (README.md, Exit codes): 0 PASS (and every probe
// BLOCKED), 1 a FAIL or an ESCAPED, 3 INCONCLUSIVE or a helper that did not finish, 125 the
// sandbox could not be launched; 2 (an invalid configuration) comes from the caller.
#pragma once

#include "launcher/inputs/config.h"
#include "launcher/plan/session_options.h"

namespace cordon {

struct VerifyOptions {
  bool deep = false;     // --deep: the probes too, once every check passed
  bool verbose = false;  // -v: every row, not only the ones that did not pass
};

// The caller holds termination signals blocked (TerminationSignalsBlocked). `options.json`:
// the helpers write JSON, and verify prints one document of its own.
int verify_command(const Config& config, SessionOptions options, VerifyOptions verify);

// verify's status for what launch_session returned with cordon-battery (its FAIL count), and
// then with cordon-probe as the command.
int verify_status_of_battery(int status);
int verify_status_of_probes(int status);

}  // namespace cordon
