#include "common/mountinfo.h"

#include <algorithm>
#include <sstream>

#include "common/paths.h"

namespace cordon {
namespace {

std::string unescape(const std::string& field) {
  std::string out;
  out.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      const char a = field[i + 1], b = field[i + 2], c = field[i + 3];
      if (a >= '0' && a <= '3' && b >= '0' && b <= '7' && c >= '0' && c <= '7') {
        out.push_back(static_cast<char>((a - '0') * 64 + (b - '0') * 8 + (c - '0')));
        i += 3;
        continue;
      }
    }
    out.push_back(field[i]);
  }
  return out;
}

// `base` (absolute) with `rest` ("" or "/a/b") below it.
std::string join_below(const std::string& base, const std::string& rest) {
  if (rest.empty() || rest == "/") return base;
  return base == "/" ? rest : base + rest;
}

bool has_option(const std::string& options, const std::string& name) {
  size_t start = 0;
  while (start <= options.size()) {
    size_t comma = options.find(',', start);
    if (comma == std::string::npos) comma = options.size();
    if (options.compare(start, comma - start, name) == 0 && comma - start == name.size()) return true;
    start = comma + 1;
  }
  return false;
}

}  // namespace

bool Mount::read_only() const { return has_option(mount_opts, "ro") || has_option(super_opts, "ro"); }

std::vector<Mount> parse_mountinfo(const std::string& text) {
  std::vector<Mount> out;
  std::istringstream lines(text);
  std::string line;
  std::istringstream in;  // one stream for every line: making one (its locale) costs more than reading a line
  while (std::getline(lines, line)) {
    // id parent major:minor root mount_point mount_opts [optional...] - fstype source super_opts
    in.clear();
    in.str(line);
    Mount m;
    std::string devno, word;
    if (!(in >> m.id >> m.parent >> devno >> m.root >> m.mount_point >> m.mount_opts)) continue;
    bool separator = false;
    while (in >> word)
      if (word == "-") {
        separator = true;
        break;
      }
    if (!separator || !(in >> m.fstype >> m.source)) continue;
    in >> m.super_opts;
    m.device = devno;
    m.root = unescape(m.root);
    m.mount_point = unescape(m.mount_point);
    m.source = unescape(m.source);
    out.push_back(std::move(m));
  }
  return out;
}

const Mount* MountTable::top_of(const Mount* m) const {
  // A mount stacked on the same point becomes a child of the one it covers; the last wins.
  for (bool moved = true; moved;) {
    moved = false;
    for (const auto& c : mounts_)
      if (c.parent == m->id && c.id != m->id && c.mount_point == m->mount_point) {
        m = &c;
        moved = true;
      }
  }
  return m;
}

const Mount* MountTable::containing(const std::string& path) const {
  const Mount* root = nullptr;
  for (const auto& m : mounts_) {
    if (m.mount_point != "/") continue;
    bool parent_listed = false;
    for (const auto& p : mounts_) parent_listed |= (p.id == m.parent && p.id != m.id);
    if (!parent_listed) {
      root = &m;
      break;
    }
  }
  if (!root) return nullptr;
  const Mount* current = top_of(root);
  // Walk the path one component at a time, descending into a child mounted at each prefix.
  size_t pos = 0;
  while (pos < path.size()) {
    size_t next = path.find('/', pos + 1);
    if (next == std::string::npos) next = path.size();
    std::string prefix = path.substr(0, next);
    pos = next;
    if (prefix.empty() || prefix == "/") continue;
    const Mount* child = nullptr;
    for (const auto& c : mounts_)
      if (c.parent == current->id && c.id != current->id && c.mount_point == prefix) child = &c;
    if (child) current = top_of(child);
  }
  return current;
}

MountTable::MountTable(std::vector<Mount> mounts) : mounts_(std::move(mounts)) {
  for (size_t i = 0; i < mounts_.size(); ++i)
    if (containing(mounts_[i].mount_point) == &mounts_[i]) visible_.push_back(i);
}

std::vector<const Mount*> MountTable::visible() const {
  std::vector<const Mount*> out;
  out.reserve(visible_.size());
  for (size_t i : visible_) out.push_back(&mounts_[i]);
  return out;
}

bool MountTable::has_mount_at_or_below(const std::string& path) const {
  for (size_t i : visible_)
    if (path_within(mounts_[i].mount_point, path)) return true;
  return false;
}

std::vector<std::string> MountTable::names_of(const std::string& path) const {
  std::vector<std::string> names = {path};
  const Mount* home = containing(path);
  if (!home) return names;
  // Where `path` lies in its filesystem: the mount's subtree, then the rest of the path.
  const std::string inside = join_below(home->root,
                                        path.substr(home->mount_point == "/" ? 0 : home->mount_point.size()));
  for (const Mount* m : visible()) {
    if (m->device != home->device || !path_within(inside, m->root)) continue;
    const std::string rest = inside.substr(m->root == "/" ? 0 : m->root.size());
    std::string name = join_below(m->mount_point, rest);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  return names;
}

std::vector<const Mount*> MountTable::mounts_below(const std::string& path) const {
  std::vector<const Mount*> out;
  for (const Mount* m : visible())
    if (m->mount_point != path && path_within(m->mount_point, path)) out.push_back(m);
  return out;
}

}  // namespace cordon
