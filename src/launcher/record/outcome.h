// How a launch ended: produced by the launch sequence (run/), recorded in the receipt.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cordon {

// The private terminal, when the launch relayed one (terminal/relay.h).
struct TerminalOutcome {
  bool relayed = false;
  std::map<std::string, uint64_t> dropped;  // sequences the output filter dropped, per class
  uint64_t bytes_to_operator = 0;
  uint64_t bytes_from_operator = 0;
  bool output_cut = false;  // the operator's terminal stopped taking output at the end
};

// The session's transcript, when [records] transcript kept one (terminal/transcript.h).
struct TranscriptOutcome {
  std::string path;
  uint64_t recorded = 0;  // bytes kept
  uint64_t dropped = 0;   // bytes past the cap (or after a failed write), not kept
};

// How a launch ended, for the exit status and the teardown receipt.
struct LaunchOutcome {
  int exit_code = 0;         // the command's status, or 128+N for death by signal N
  bool command_ran = false;  // bwrap reported the command's exit
  double duration_seconds = 0;
  std::vector<std::string> survivors;          // session processes alive after the sandbox exited (then killed)
  std::vector<std::string> limit_hits;         // budgets the session ran into
  std::vector<std::string> teardown_problems;  // a stage's teardown check that failed (survivors were still reaped)
  TerminalOutcome terminal;
  std::optional<TranscriptOutcome> transcript;
  // Why cordon ended the session itself, when it did: "operator terminal hung up" (the
  // terminal it relayed went away: SIGHUP, then SIGKILL after a grace). "" otherwise.
  std::string ended_by = "";
};

}  // namespace cordon
