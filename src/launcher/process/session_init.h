// The session's own pid namespace, whose init is a process of ours that dies with the
// launcher. bwrap's --die-with-parent leaves a window: killed while bwrap is still setting up,
// its sandbox was seen running on, orphaned, in 12 of 30 trials. Here the launcher's forked
// child makes a pid namespace and forks its init, which is tied to that child (and that child
// to the launcher) by PR_SET_PDEATHSIG before it execs bwrap. When the launcher dies, the
// kernel kills the child, then the init, and the death of a pid namespace's init kills every
// process in it and in the namespaces below it: no sandbox can outlive its launcher.
//
// The init's parent-death signal is a catchable one: on it the init kills its whole namespace
// before it exits, so the command gate it holds (run/sandbox.cpp) never opens by end of file.
//
//   launcher -> child (outside, waits) -> init (pid 1, waits) -> bwrap -> bwrap's sandbox
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace cordon {

// Writes "deny" to setgroups and a 1:1 map of `uid`/`gid` for the calling process's new user
// namespace. Throws cordon::Error naming the file that could not be written.
void map_own_ids(uid_t uid, gid_t gid);

// In the launcher's forked child, after the launch stages: makes the pid namespace (with a user
// namespace of the caller's own ids first when it lacks the privilege), forks its init, and
// the init forks the process that returns here and execs bwrap. The calling process and the
// init each wait for their child, pass on the signals in `forwarded` (except SIGCHLD) and end
// with bwrap's exact wait status; neither returns. The signals in `forwarded` must be blocked.
// Throws cordon::Error when the namespace cannot be made; the init, which cannot throw to the
// caller, writes "what\nfix" to `error_fd` and exits kExitLaunchRefused. `leads_terminal`: the
// calling process leads the private terminal's session; the init then takes a process group
// of its own in the terminal's foreground, so that job-control stops work inside.
void fork_session_init(const sigset_t& forwarded, int error_fd, bool leads_terminal);

}  // namespace cordon
