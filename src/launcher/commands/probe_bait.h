// Bait for `cordon verify --deep`: things outside the sandbox that the probes must fail to
// reach. A TCP listener on the host's loopback, an abstract unix listener in the launcher's
// network namespace, canary files outside the allow-list, and the launcher itself as a
// process to signal or trace. Everything is removed when the bait goes away.
#pragma once

#include <string>
#include <vector>

#include "common/unique_fd.h"

namespace cordon {

class ProbeBait {
 public:
  // `home` and `workspace` decide where canaries go ($HOME and the workspace's parent).
  ProbeBait(const std::string& home, const std::string& workspace);
  ~ProbeBait();
  ProbeBait(const ProbeBait&) = delete;
  ProbeBait& operator=(const ProbeBait&) = delete;

  // cordon-probe arguments naming the bait.
  std::vector<std::string> probe_args() const;

 private:
  UniqueFd loopback_;
  int loopback_port_ = 0;
  UniqueFd abstract_;
  std::string abstract_name_;
  std::vector<std::string> canaries_;
};

}  // namespace cordon
