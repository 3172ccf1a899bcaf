// Who still uses a network namespace after its session: the egress jail's and the allowlist
// mode's teardown check that nothing of the sandbox outlived it.
#pragma once

#include <sys/types.h>

#include <string>

namespace cordon {

// Processes still using the network namespace (dev, ino) that are not on their way out, as
// "PID (comm) ..."; "" when none. bwrap's own pid 1 can outlive the holder by a moment (it
// reports the exit status, then exits): each is given up to `timeout_ms` to finish.
std::string processes_left_in_namespace(dev_t dev, ino_t ino, int timeout_ms);

// What a stage's teardown reports when processes are left (2 s each to finish), appended to
// `problems` ("; "-separated); nothing when none or when `ino` is 0 (no namespace recorded).
void append_namespace_leftovers(dev_t dev, ino_t ino, std::string& problems);

}  // namespace cordon
