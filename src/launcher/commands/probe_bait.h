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
  // `home` and `workspace` decide where canaries go ($HOME and the workspace's parent). With
  // `review`, bait for probe 34 goes into the workspace itself (common/review_bait.h).
  ProbeBait(const std::string& home, const std::string& workspace, bool review = false);
  ~ProbeBait();
  ProbeBait(const ProbeBait&) = delete;
  ProbeBait& operator=(const ProbeBait&) = delete;

  // cordon-probe arguments naming the bait.
  std::vector<std::string> probe_args() const;

  // After the probes' review-mode session: "" when the host workspace kept the review bait as
  // planted (probe 34 BLOCKED), else what reached the host tree (probe 34 ESCAPED).
  std::string review_escape() const;
  bool has_review_bait() const { return !review_stem_.empty(); }

 private:
  UniqueFd loopback_;
  int loopback_port_ = 0;
  UniqueFd abstract_;
  std::string abstract_name_;
  std::vector<std::string> canaries_;
  std::string review_stem_;  // WORKSPACE/.cordon-review-bait-TAG, or "" without review bait
};

}  // namespace cordon
