// `cordon run --scratch`: a fresh, empty workspace for a session that has no project (typing
// an agent's name in ~ is refused: the home is never a workspace). It is made as
// HOME/cordon-scratch/TIMESTAMP-RANDOM (0700), the user's own, and kept after the session: what
// the agent wrote there may be wanted, and deleting it is the user's call.
#pragma once

#include <string>

namespace cordon {

inline constexpr const char* kScratchParent = "cordon-scratch";

// Makes the directory under `home` and returns its path; throws cordon::Error (what + fix).
std::string make_scratch_workspace(const std::string& home);

}  // namespace cordon
