// The agent's settings are read-only inside a session (its control entries, common/agent_control.h):
// a change made there (Claude Code's /theme, Gemini's settings dialog) fails or is lost, and
// the agent may not say so. cordon cannot see a refused write, so it says it once instead: at
// the end of the first interactive session of each profile on this account, one line naming
// the settings files and the two ways to change them (edit the file outside a session, or run
// the real agent outside cordon). A marker beside the session records keeps it to once.
#pragma once

#include <string>

#include "launcher/inputs/config.h"

namespace cordon {

// Prints the notice when `interactive` (the session's terminal was relayed and stderr is a
// terminal), the profile has control entries, and `sessions_dir` holds no marker for it yet;
// then leaves the marker. `real_binary`: the unshimmed agent ("" = unknown).
void notice_read_only_settings(const std::string& sessions_dir, const AgentProfile& profile, const std::string& home,
                               const std::string& real_binary, bool interactive);

}  // namespace cordon
