#include "common/paths.h"

namespace cordon {

bool path_within(const std::string& inner, const std::string& outer) {
  if (outer.empty()) return false;
  if (outer == "/") return !inner.empty() && inner[0] == '/';
  return inner == outer ||
         (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/');
}

std::string parent_dir(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::vector<std::string> path_components(const std::string& path) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (at <= path.size()) {
    size_t slash = path.find('/', at);
    if (slash == std::string::npos) slash = path.size();
    if (slash > at && !(slash - at == 1 && path[at] == '.')) parts.emplace_back(path, at, slash - at);
    at = slash + 1;
  }
  return parts;
}

std::string normalize_path(const std::string& path) {
  std::vector<std::string> parts;
  for (auto& part : path_components(path)) {
    if (part != "..") parts.push_back(std::move(part));
    else if (!parts.empty()) parts.pop_back();
  }
  std::string out;
  for (const auto& p : parts) out.append("/").append(p);
  return out.empty() ? "/" : out;
}

}  // namespace cordon
