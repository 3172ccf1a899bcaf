// bwrap's --json-status-fd stream: one JSON object per line ({"child-pid": N}, then
// {"exit-code": N} once the command itself ran and ended).
#pragma once

#include <string>

namespace cordon {

// True when a line of the stream carries "exit-code": the command itself started. Lines that
// are not JSON are skipped (bwrap may be cut off mid-line when it is killed).
bool bwrap_status_says_command_ran(const std::string& stream);

// True once bwrap has reported the sandbox's child pid: its monitor then has a child that dies
// with it (--die-with-parent), so a termination signal may be passed on. Before that, bwrap is
// still setting up, and a signal that ended it could orphan a half-made sandbox.
bool bwrap_status_says_sandbox_started(const std::string& stream);

}  // namespace cordon
