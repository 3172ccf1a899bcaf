// What every forked child of the launcher does before it execs a program (bwrap, pasta, a
// helper): the steps that tie it to the session and give it a clean signal state. Only
// async-signal-safe calls: they run between fork and execve.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>

namespace cordon {

// Every signal's disposition back to SIG_DFL. A caller that ignores SIGPIPE (Python, some CI
// runners) passes SIG_IGN through fork and exec; Debian 12's pasta then refuses to start, and
// a sandboxed command would inherit an ignored signal it never asked for.
void reset_signal_dispositions();

// The child is sent SIGKILL when the launcher dies, whatever kills it (SIGKILL included). The
// setting survives execve of a non-setuid program. Returns false when the launcher
// (`launcher_pid`) is already gone, so the caller exits instead of running unsupervised.
bool die_with_launcher(pid_t launcher_pid);

// A helper the launcher runs beside the sandbox (pasta, the egress proxy): dies with the
// launcher, leads a session of its own (a terminal's Ctrl-C must not end it mid-session), and
// starts from default signal dispositions and an empty mask, but for `keep_blocked` (signals
// the helper reads itself once it runs: blocked from the fork on, one that comes early waits
// pending instead of ending it). False when the launcher is gone.
bool become_session_helper(pid_t launcher_pid, const sigset_t* keep_blocked = nullptr);

// Sends "what\nfix" to the launcher through `error_fd` (it refuses the launch with that
// message) and exits kExitLaunchRefused: how a forked child reports a failed setup step.
[[noreturn]] void refuse_from_child(int error_fd, const std::string& what, const std::string& fix);

}  // namespace cordon
