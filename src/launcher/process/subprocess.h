// Running a helper program and capturing its output (doctor's probes, version queries).
#pragma once

#include <string>
#include <vector>

namespace cordon {

struct CapturedRun {
  int exit_code = -1;  // exit_code_from_wait_status; 127 when it could not be executed
  std::string output;  // stdout and stderr together
};

// Runs argv[0] (an absolute path) with an empty environment and stdin from /dev/null.
CapturedRun run_capture(const std::vector<std::string>& argv);

}  // namespace cordon
