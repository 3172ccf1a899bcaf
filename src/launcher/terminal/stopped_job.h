// A job that stops itself. A TUI (vim, Claude Code) reads Ctrl-Z as a key in raw mode,
// restores the terminal and sends itself SIGTSTP; in cooked mode the pty sends it. The session
// init gives the sandbox a process group of its own that is not orphaned
// (process/session_init.h), so the stop takes effect as on any terminal, but nothing tells the
// relay, which is not the stopped process's parent. The relay therefore looks for a while
// after it passed a suspend key in (terminal/relay.h): a process of the session's foreground
// group stopped by a signal (state T in /proc) means the job stopped, and cordon stops too.
#pragma once

#include <sys/types.h>

namespace cordon::terminal {

// True when a process of process group `pgrp` (as this process's pid namespace sees it) is
// stopped by a signal (not by a tracer).
bool group_has_stopped_process(pid_t pgrp);

// True when `pgrp` is the session's own foreground group: the group of `session_leader` (the
// launcher's child that leads the private terminal's session), or a group whose leader is that
// process's child (the session init's, which took a group of its own). A job of a shell
// inside is neither: that shell suspends its own jobs.
bool is_session_group(pid_t pgrp, pid_t session_leader);

}  // namespace cordon::terminal
