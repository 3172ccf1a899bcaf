// `cordon diff`, `cordon apply` and `cordon discard`: a person's side of review mode
// (docs/review.md). diff shows a review's changes and its findings; apply writes the accepted
// changes into the host workspace and appends a receipt to the session's record; discard
// removes the review's upper layer.
#pragma once

#include <string>
#include <vector>

#include "launcher/inputs/config.h"

namespace cordon {

struct ReviewOptions {
  std::string session;  // "" = the newest pending review of the current workspace
  bool stat = false, name_status = false, json = false;
  std::string color = "auto";       // auto, always, never
  std::vector<std::string> accept;  // apply: finding ids
  std::vector<std::string> paths;   // apply: relative to the workspace; none = all
  bool dry_run = false, interactive = false;
};

int review_diff_command(const std::string& sessions_dir, const Config& config, const ReviewOptions& o);
int review_apply_command(const std::string& sessions_dir, const Config& config, const ReviewOptions& o);
int review_discard_command(const std::string& sessions_dir, const ReviewOptions& o);

}  // namespace cordon
