// The command's own "not found" and "not executable", told apart from cordon's failures:
// without this check bwrap's execvp fails after the sandbox is set up and the launch reads as
// a failed setup (125, "run cordon doctor").
#pragma once

#include <string>

namespace cordon {

// Finds `command` the way execvp will inside the sandbox: a name without '/' along
// `path_value` (the sandbox's PATH; glibc's default when empty), a path as given. Throws
// cordon::Error exiting 127 when nothing is there, 126 when what is there cannot be executed
// (a directory, no execute permission), as shells do. The host's view stands in for the
// sandbox's: what is missing on the host is missing inside too (the sandbox's root is the
// host's, read-only); what bwrap hides (in $HOME, /tmp) still fails inside, as before.
void check_command_runnable(const std::string& command, const std::string& path_value);

}  // namespace cordon
