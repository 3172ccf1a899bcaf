// Path containment, by components: the one rule every "is this inside that" question uses.
#pragma once

#include <string>
#include <vector>

namespace cordon {

// "/a/b" and "/a" itself are within "/a"; "/a/bc" is not. "/" contains every absolute path.
// Nothing is within an empty `outer`. Plain string comparison: no symlinks, no "..", and a
// trailing slash on `outer` ("/a/") matches nothing below it.
bool path_within(const std::string& inner, const std::string& outer);

// The directory holding an absolute path: "/a/b" -> "/a", "/a" -> "/".
std::string parent_dir(const std::string& path);

// The components of `path` between slashes, without empty ones and "." ("/a//./b/" -> a, b);
// ".." is kept (the caller decides what it means).
std::vector<std::string> path_components(const std::string& path);

// "/a/./b/../c" -> "/a/c", by components (no filesystem access; ".." above / stays at /).
std::string normalize_path(const std::string& path);

}  // namespace cordon
