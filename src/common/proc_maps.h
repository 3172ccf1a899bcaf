// The files processes have mapped executable (/proc/PID/maps), for the checks that no such
// file can be replaced from inside the sandbox (battery check 32, probe 33).
#pragma once

#include <set>
#include <string>

namespace cordon {

struct MappedExecutables {
  std::set<std::string> files;  // absolute paths; deleted files and anonymous maps left out
  bool truncated = false;       // a bound was reached: the set is incomplete
};

// Every process visible in /proc (in a sandbox: the session's own PID namespace), bounded.
MappedExecutables mapped_executables();

// The file of one maps line with an executable mapping; "" for any other line.
std::string executable_mapping_path(const std::string& maps_line);

}  // namespace cordon
