// Path containment, by components: the one rule every "is this inside that" question uses.
#pragma once

#include <string>

namespace cordon {

// "/a/b" and "/a" itself are within "/a"; "/a/bc" is not. "/" contains every absolute path.
// Nothing is within an empty `outer`. Plain string comparison: no symlinks, no "..", and a
// trailing slash on `outer` ("/a/") matches nothing below it.
bool path_within(const std::string& inner, const std::string& outer);

// The directory holding an absolute path: "/a/b" -> "/a", "/a" -> "/".
std::string parent_dir(const std::string& path);

}  // namespace cordon
