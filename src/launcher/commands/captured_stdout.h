// `cordon verify --json` prints one document of its own, made of its helpers' documents: for
// the helper's session the launcher's stdout (which the sandbox inherits as its own) is a
// memfd, read back once the session has ended.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "common/unique_fd.h"

namespace cordon {

class CapturedStdout {
 public:
  // From here on fd 1 is a new memfd (stdio flushed first). Throws cordon::Error.
  CapturedStdout();
  // fd 1 is the caller's again (also after an exception).
  ~CapturedStdout();
  CapturedStdout(const CapturedStdout&) = delete;
  CapturedStdout& operator=(const CapturedStdout&) = delete;

  // Ends the capture: fd 1 is the caller's again, and what was written to it meanwhile is
  // returned; nullopt when it was more than `limit` bytes or could not be read back.
  std::optional<std::string> finish(size_t limit);

 private:
  void restore();
  UniqueFd memfd_;
  UniqueFd caller_;  // the caller's fd 1, kept while the memfd stands in for it
};

}  // namespace cordon
