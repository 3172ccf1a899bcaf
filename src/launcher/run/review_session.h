// The end of a review-mode session, launcher side: an upper layer the session left empty (or a
// launch refused before its base was written) is removed at once; one holding changes stays
// for `cordon diff` / `cordon apply` / `cordon discard`, and the person is told so.
#pragma once

#include <string>

namespace cordon {

// `review_dir` is the session's STATE/reviews/ID (workspace/workspace_plan.h). `discard`
// (`cordon verify`'s own launches) removes it whatever it holds. Never throws: a review that
// cannot be read is kept and named, never removed.
void finish_review(const std::string& review_dir, const std::string& id, bool discard = false);

}  // namespace cordon
