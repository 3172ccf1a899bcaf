// How the review commands read the bytes of a changed path: one side of a Change, the host's
// (Before) or the upper layer's (After). Shared by the patch renderer and the scanner so both
// read through the same opener (beneath.h) and neither follows a link the agent planted.
#pragma once

#include <functional>
#include <string>

#include "launcher/review/review_change.h"

namespace cordon::review {

enum class Side { Before, After };

// The content of a regular file on `side` of the change. Throws cordon::Error when the file
// cannot be read. May return only a prefix of a very large file (the scanner reads no further
// than ScanPolicy::secret_scan_bound).
using ReadContent = std::function<std::string(const Change&, Side)>;

}  // namespace cordon::review
