// Waiting on processes that are not our children (pasta's daemon, processes found in a
// namespace) without races: pidfds never point at a recycled PID.
#pragma once

#include <sys/types.h>

namespace cordon {

int pidfd_open(pid_t pid);                // -1 with errno on failure (ESRCH: gone)
int pidfd_signal(int pidfd, int signal);  // pidfd_send_signal(2)

// Waits until `fd` is readable (or hung up); false on timeout. EINTR-safe.
bool wait_readable(int fd, int timeout_ms);

// True once the process behind `pidfd` has exited or is irrevocably exiting (PF_EXITING in
// /proc/PID/stat), within timeout_ms. Exit start has no event: polls the pidfd in 1 ms steps.
bool wait_exiting(int pidfd, pid_t pid, int timeout_ms);

}  // namespace cordon
