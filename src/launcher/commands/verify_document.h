// `cordon verify --json` prints one document, "cordon-verify" version 1 (docs/schemas.md): the
// battery's document, the probes' (with --deep, once every check passed) and verify's exit
// status, so a CI job parses stdout once whatever the flags.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cordon {

// What one helper wrote to its stdout in its session.
struct HelperOutput {
  const char* helper = "";            // "cordon-battery", "cordon-probe"
  std::optional<std::string> output;  // nullopt: it could not be read back (more than kMaxHelperOutput)
};

// More than a helper's document ever needs (tens of KiB): anything longer is not one.
inline constexpr size_t kMaxHelperOutput = 16 << 20;

struct VerifyDocument {
  std::string text;  // one line of JSON and its newline
  // The exit status the document states: `exit_code` as given, except that a verify that
  // would PASS without a helper's document is INCOMPLETE (kExitInconclusive): nothing is
  // claimed that the document does not show.
  int exit_code = 0;
  std::vector<std::string> problems;  // why a helper's member is null though it ran (also in the document)
};

// A probe whose attempt only the launcher can judge, after the session (probe 34: the host
// tree of a review-mode workspace unchanged).
struct OutsideVerdict {
  std::string probe;     // "95"
  bool escaped = false;  // ESCAPED, else BLOCKED
  std::string evidence;
};

// `probes` is nullopt when the probes did not run (no --deep, or a check did not pass).
VerifyDocument verify_document(const HelperOutput& battery, const std::optional<HelperOutput>& probes, bool deep,
                               int exit_code, const std::vector<OutsideVerdict>& judged_outside = {});

}  // namespace cordon
