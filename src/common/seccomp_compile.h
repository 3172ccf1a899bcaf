// Compiles the seccomp rule table to classic BPF in a sealed memfd: the bytes bwrap reads
// from `--seccomp FD` and installs just before execve.
#pragma once

#include <linux/filter.h>

#include <vector>

#include "common/seccomp_policy.h"
#include "common/unique_fd.h"

namespace cordon::seccomp {

// Default action ALLOW, bad-architecture action KILL_PROCESS, native architecture only.
// Returns a sealed memfd positioned at offset 0 whose size is a non-zero multiple of 8
// (struct sock_filter). CLOEXEC is still set: the launcher clears it on the copy it hands
// to bwrap. The fd's offset is shared with any dup, so read it with pread, never read.
// Throws cordon::Error on any failure.
UniqueFd compile_to_memfd(const std::vector<Rule>& rules);

// The same bytes as instructions, for a process that installs the filter on itself
// (seccomp_install.h): cordon's helpers outside the sandbox. Throws cordon::Error.
std::vector<sock_filter> compile_program(const std::vector<Rule>& rules);

}  // namespace cordon::seccomp
