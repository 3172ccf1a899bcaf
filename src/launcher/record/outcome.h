// How a launch ended: produced by the launch sequence (run/), recorded in the receipt.
#pragma once

#include <string>
#include <vector>

namespace cordon {

// How a launch ended, for the exit status and the teardown receipt.
struct LaunchOutcome {
  int exit_code = 0;         // the command's status, or 128+N for death by signal N
  bool command_ran = false;  // bwrap reported the command's exit
  double duration_seconds = 0;
  std::vector<std::string> survivors;          // session processes alive after the sandbox exited (then killed)
  std::vector<std::string> limit_hits;         // budgets the session ran into
  std::vector<std::string> teardown_problems;  // a stage's teardown check that failed (survivors were still reaped)
};

}  // namespace cordon
