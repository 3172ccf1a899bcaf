#include "launcher/workspace/repositories.h"

namespace cordon {
namespace {

bool holds_git(const TreeView& tree, const std::string& rel) {
  const EntryKind git = tree.kind(rel.empty() ? ".git" : rel + "/.git");
  return git == EntryKind::Directory || git == EntryKind::File;
}

}  // namespace

std::vector<std::string> repositories_below(const TreeView& tree, size_t limit) {
  std::vector<std::string> found;
  if (holds_git(tree, "")) return found;
  for (const auto& name : tree.list("")) {
    if (found.size() >= limit) break;
    if (name.empty() || name[0] == '.' || tree.kind(name) != EntryKind::Directory) continue;
    if (holds_git(tree, name)) {
      found.push_back(name);
      continue;
    }
    for (const auto& inner : tree.list(name)) {
      if (found.size() >= limit) break;
      const std::string rel = name + "/" + inner;
      if (!inner.empty() && inner[0] != '.' && tree.kind(rel) == EntryKind::Directory && holds_git(tree, rel))
        found.push_back(rel);
    }
  }
  return found;
}

}  // namespace cordon
