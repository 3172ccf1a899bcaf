// Control keys inside the agent's state files (common/agent_control.h ControlKeys): Claude
// Code rewrites ~/.claude.json whole at every start, so the file stays read-write, yet its
// `mcpServers` would start a command the next time Claude Code runs outside cordon. At launch
// the values of those keys are kept in the session's own file in the state directory (0600,
// like the file they come from); after the sandbox is gone (and, for a SIGKILLed launcher, at
// the sweep) any change to them is undone: the keys get their launch values back, the rest of
// what the session wrote stays, and the session's version is kept in
// STATE/quarantine/SESSION/ for review. The audit decides on what the agent opens there, which
// follows links (fs/control_file_place.h): a user's link is audited at the file behind it, a
// link or node the session planted is removed. Each file read is opened O_NOFOLLOW and
// replaced by a rename in its own directory.
#pragma once

#include <string>
#include <vector>

#include "common/agent_control.h"
#include "common/json_codec.h"
#include "launcher/section/teardown_audit.h"

namespace cordon {

// The values at `pointers` in `doc`, as {concrete pointer: value}.
Json control_key_values(const Json& doc, const std::vector<std::string>& pointers);

// `doc` with the values at `pointers` replaced by `launch_values` (keys added since removed).
Json with_control_keys(Json doc, const std::vector<std::string>& pointers, const Json& launch_values);

// At launch: the snapshot of `agent`'s control keys under `home`; "" or a problem (the launch
// goes on: the teardown then has nothing to compare, and says so).
std::string snapshot_control_keys(const std::string& sessions_dir, const std::string& id, const std::string& home,
                                  const std::string& agent);

// After the session: compares, restores, quarantines, removes the snapshot. Items have kind
// "state-key"; their detail names the pointers that changed.
FootholdAudit restore_control_keys(const std::string& sessions_dir, const std::string& id);

// A JSON pointer as people read a key: "/projects/~1home~1dev/mcpServers" is
// `projects["/home/dev"].mcpServers`.
std::string readable_pointer(const std::string& pointer);

// The stderr line of one item, without "cordon: ". Only a key the session set to a value that
// grants something (non-empty, true) is restored and named: Claude Code's empty defaults for
// a new project are left alone.
std::string control_key_line(const AuditItem& item);

}  // namespace cordon
