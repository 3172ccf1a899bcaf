// `cordon setup-user NAME` (root): delegates a cgroup to an ordinary user so that the user's
// sessions get their memory and pids budgets, which cgroups otherwise let only root (or a
// systemd-delegated unit) place. `--remove` undoes it. Where (common/cgroup_delegation.h):
//   cgroup v1: HIERARCHY/cordon/NAME in each hierarchy carrying memory or pids, owned by NAME.
//     Any process of NAME's may be moved into a cgroup NAME owns, so this is all it takes.
//   cgroup v2: /sys/fs/cgroup/cordon/NAME (controllers enabled, owned by NAME) and its leaf
//     NAME/login. v2 moves a process only within a subtree the mover owns: the user's shells
//     must start in NAME/login (the login setup puts them there), or cordon be started in a
//     systemd-delegated scope instead.
// Cgroups live in memory: run it again after every boot (a boot unit, docs/limits.md).
#pragma once

#include <string>

namespace cordon {

// Prints each step and what the user does next; throws cordon::Error (what + fix).
int setup_user_command(const std::string& user, bool remove);

}  // namespace cordon
