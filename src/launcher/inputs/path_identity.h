// What the dangerous-path rules (section/dangerous_paths.h) decide a writable path on besides
// its name: every other name the host's mounts give the same directory, the mounts below it
// (a bind is recursive, so they come along, writable), and the kernel's identity of it and of
// the protected paths. A bind mount of the home under another name is then still the home.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/file_id.h"
#include "common/mountinfo.h"

namespace cordon {

struct Submount {
  std::vector<std::string> names;  // its mount point first, then its other names
  bool read_only = false;          // stays read-only inside (bwrap keeps each submount's flags)
};

struct PathNames {
  std::vector<std::string> names;   // the path itself first, then its other names
  std::vector<Submount> submounts;  // each mount below it
};

// Read from `mounts` (this process's mountinfo) for `path` (absolute, resolved).
PathNames path_names(const MountTable& mounts, const std::string& path);

// The identities of `paths` and of each of their ancestors up to "/", into `ids` (what cannot
// be read is left out).
void note_identities(const std::vector<std::string>& paths, std::map<std::string, FileId>& ids);

}  // namespace cordon
