// Children of the launcher that outlive a session's sandbox on purpose (the session keeper,
// record/session_keeper.h): the reaping of what the sandbox left behind (run/sandbox.cpp)
// passes over them instead of naming them survivors and killing them. Their owner reaps them.
#pragma once

#include <sys/types.h>

#include <vector>

namespace cordon {

void spare_child(pid_t pid);
void unspare_child(pid_t pid);
bool is_spared_child(pid_t pid);

// The launcher's children now (/proc/self/task/TID/children; a scan of /proc where the kernel
// has no such file), spared ones included.
std::vector<pid_t> children_of_this_process();

}  // namespace cordon
