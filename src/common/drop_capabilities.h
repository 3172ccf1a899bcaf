// Giving up every capability for good: what cordon's helpers outside the sandbox that need none
// (the egress proxy, the terminal keeper) do before their Landlock domain, so one started by a
// root launcher does not keep root's capabilities (CAP_NET_ADMIN in the host's network
// namespace, CAP_DAC_OVERRIDE, ...). Only system calls: safe in a forked child.
#pragma once

namespace cordon {

// Clears the ambient set, then the effective, permitted and inheritable sets (the bounding
// set does not matter to a process that runs no program). Returns 0 or the errno of capset.
int drop_all_capabilities();

// Whether the calling thread holds any effective capability (false when it cannot tell).
bool holds_capabilities();

}  // namespace cordon
