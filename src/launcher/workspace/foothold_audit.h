// The teardown audit: what the launch could not bind read-only because it did not exist yet
// (an agent's `git init`, a new hooks/ or config.worktree, a new submodule's git dir) must not
// become a foothold either. After the sandbox is gone (and, for a SIGKILLed launcher, at the
// next launch's or `cordon sessions gc`'s sweep), every git dir of the workspace whose config
// or hooks were not bound read-only is looked at: hooks other than *.sample are moved to
// <workspace>/.git/cordon-quarantine/<session>/ with their exec bits cleared; a config holding
// any key outside the allow-list (workspace/git_config_filter.h) is moved there too and replaced by
// its allowed lines; symlinks and pointers (commondir, a .git file) the agent planted are moved.
// [workspace] protect entries that appeared are only named. Every step walks from the
// workspace with O_NOFOLLOW.
#pragma once

#include <string>
#include <vector>

#include "launcher/section/teardown_audit.h"

namespace cordon {

inline constexpr const char* kQuarantineDir = "cordon-quarantine";

// `protected_paths` and `protect_absent` as the session intent recorded them.
FootholdAudit audit_footholds(const std::string& workspace, const std::string& session_id,
                              const std::vector<std::string>& protected_paths,
                              const std::vector<std::string>& protect_absent);

// The line on stderr for one item ("quarantined .git/hooks/pre-commit written during the
// session (it would run on the host): see PATH"), without the "cordon: " prefix.
std::string audit_line(const std::string& workspace, const AuditItem& item);

}  // namespace cordon
