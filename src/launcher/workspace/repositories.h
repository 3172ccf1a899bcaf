// The git repositories a workspace holds below itself. A workspace that is a projects
// directory (`~/src`) rather than one project makes every project in it writable to the
// session: on a terminal cordon says so before the launch (run/session.cpp).
#pragma once

#include <string>
#include <vector>

#include "launcher/inputs/workspace_tree.h"

namespace cordon {

// The directories at depth 1 and 2 below the workspace holding a `.git` (a directory or a
// gitdir file), in the tree's order; empty when the workspace is itself a repository (its
// nested repositories are its own business). Bounded: at most `limit` are listed.
std::vector<std::string> repositories_below(const TreeView& tree, size_t limit = 16);

}  // namespace cordon
