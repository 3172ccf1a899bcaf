// The command's own "not found" and "not executable", told apart from cordon's failures:
// without this check bwrap's execvp fails after the sandbox is set up and the launch reads as
// a failed setup (125, "run cordon doctor").
#pragma once

#include <functional>
#include <string>

namespace cordon {

// Whether a resolved host path is there inside the sandbox (plan/visibility.h).
using VisibleInside = std::function<bool(const std::string& real_path)>;

// Finds `command` the way execvp will inside the sandbox: a name without '/' along
// `path_value` (the sandbox's PATH; glibc's default when empty), a path as given; a host file
// that is not `visible` inside is passed over, as execvp inside will not find it. Throws
// cordon::Error exiting 127 when nothing is there (or only outside the sandbox's view), 126
// when what is there cannot be executed (a directory, no execute permission), as shells do.
// `home`: the launching user's $HOME, for the fix of a command hidden there (home.keep, since
// the sandbox's home holds only the profile's entries).
void check_command_runnable(const std::string& command, const std::string& path_value, const VisibleInside& visible,
                            const std::string& home = "");

}  // namespace cordon
