// Where `cordon setup-user NAME` delegates a cgroup to an ordinary user, and where that user's
// launcher looks for it: HIERARCHY_ROOT/cordon/NAME, in each cgroup v1 hierarchy carrying a
// budget's controller and in the cgroup v2 root. On v2 the user's processes must already live
// below it (v2 lets a process move only within a subtree its mover owns), so setup-user also
// makes NAME/login, the leaf the operator's login setup puts the user's shells in.
#pragma once

#include <string>

namespace cordon {

inline constexpr const char* kDelegationParent = "cordon";
inline constexpr const char* kDelegationLoginLeaf = "login";

inline std::string delegated_cgroup(const std::string& hierarchy_root, const std::string& user) {
  return (hierarchy_root == "/" ? "" : hierarchy_root) + "/" + kDelegationParent + "/" + user;
}

}  // namespace cordon
