// The bait `cordon verify --deep` plants in a review-mode workspace for probe 34: one file to
// edit, one to rename, one to delete (and a name to create beside it). The probe acts on them
// from inside; the launcher judges the host copies after the session. Names are the one shared
// fact between the two sides.
#pragma once

namespace cordon {

inline constexpr const char* kReviewBaitPrefix = ".cordon-review-bait-";
inline constexpr const char* kReviewBaitEdit = "-edit";
inline constexpr const char* kReviewBaitRename = "-rename";
inline constexpr const char* kReviewBaitDelete = "-delete";
inline constexpr const char* kReviewBaitNew = "-new";
inline constexpr const char* kReviewBaitText = "cordon review bait: the host copy must not change before apply\n";

}  // namespace cordon
