// The scan a review goes through, from the configuration ([review]) and the review's base (the
// digests of the host's credential values the session never saw): the one place both meet.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "launcher/inputs/config.h"
#include "launcher/review/review_base.h"
#include "launcher/review/review_scan.h"

namespace cordon::review {

// The shipped rules plus [review]'s, the size cap, and the base's masked values.
ScanPolicy scan_policy_for(const ReviewConfig& config, const ReviewBase& base);

// A repository's own metadata (a path with a ".git" component: objects, refs, the index,
// config, hooks) is history and code git on the host reads and runs: the changes inside each
// one become one blocking finding ("git-internals", dangerous) in place of the scanner's
// per-file scope findings there, so neither a whiteout over .git nor a rewritten ref reaches
// the host unless a person accepts it. Its id covers every such change (path, kind, size, mode).
std::vector<Finding> gate_git_internals(std::vector<Finding> findings, const ChangeSet& changes);

// The digests a review-mode session's base records of the host's credential variables the
// sandbox does not receive (common/env_names.h credential_env_name, not in `passed`), as the
// JSON array review_base.h stores, and a fresh key. Values shorter than kMinMaskedValueLength
// are left out. Never a value, never a name outside the label.
std::pair<std::string, uint64_t> masked_values_json(const std::vector<std::pair<std::string, std::string>>& host_env,
                                                    const std::vector<std::string>& passed_names);

}  // namespace cordon::review
