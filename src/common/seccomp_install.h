// Installing a compiled seccomp filter (seccomp_compile.h compile_program) on the calling
// process: how cordon's helpers outside the sandbox (the egress proxy, the keepers) take the
// filter bwrap installs for the sandbox. Only system calls, no allocation: safe in a child
// forked from the multi-threaded launcher.
#pragma once

#include <linux/filter.h>

#include <vector>

namespace cordon::seccomp {

// Sets no_new_privs and installs `program` on the calling thread (call it before any other
// thread exists: threads started later inherit it). Returns 0 or the errno; an empty program
// is EINVAL.
int install_program(const std::vector<sock_filter>& program);

}  // namespace cordon::seccomp
