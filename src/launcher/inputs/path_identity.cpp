#include "launcher/inputs/path_identity.h"

#include "common/paths.h"

namespace cordon {

PathNames path_names(const MountTable& mounts, const std::string& path) {
  PathNames out;
  out.names = mounts.names_of(path);
  for (const Mount* below : mounts.mounts_below(path))
    out.submounts.push_back({mounts.names_of(below->mount_point), below->read_only()});
  return out;
}

void note_identities(const std::vector<std::string>& paths, std::map<std::string, FileId>& ids) {
  for (const auto& path : paths) {
    if (path.empty() || path[0] != '/') continue;
    for (std::string at = path;; at = parent_dir(at)) {
      if (!ids.count(at))
        if (std::optional<FileId> id = file_id(at)) ids.emplace(at, *id);
      if (at == "/") break;
    }
  }
}

}  // namespace cordon
