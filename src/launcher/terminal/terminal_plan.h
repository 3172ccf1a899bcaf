// The private terminal's section of the plan: whether the sandbox's terminal streams are a new
// pty that the launcher relays through the output filter (terminal/relay.h), and what the
// session file states about it. Pure: made from the [terminal] section and the launcher's own
// streams.
#pragma once

#include <cstdint>
#include <string>

#include "common/intent.h"
#include "common/terminal_classes.h"
#include "launcher/inputs/config.h"

namespace cordon {

// When a standard stream of the launcher is a terminal and [terminal] private is on, the
// sandbox's terminal streams are a new pty that the launcher relays through the output filter.
struct TerminalPlan {
  bool relay = false;
  unsigned fds = 0;  // bit N: fd N of the sandbox is the pty (the launcher's fd N is a terminal)
  TerminalPassSet pass;
  bool attach = true;  // test hook (weaken "shared-terminal"): the sandbox keeps the operator's terminal
  // Bit 1 / bit 2: the sandbox's stdout / stderr is not a terminal and goes through the output
  // filter anyway ([terminal] filter_pipes, `run --filter-output`; terminal/output_pipes.h).
  unsigned filter_fds = 0;
  // Bit 1 / bit 2: the sandbox's stdout / stderr is not a terminal and not filtered, and goes
  // through the launcher's pipe unchanged only so the transcript can keep it.
  unsigned record_fds = 0;
  // [records] transcript: where the session's transcript goes (set with the session's id, in
  // run/session.cpp; "" = none) and its cap (terminal/transcript.h).
  std::string transcript_path;
  std::string transcript_session;
  uint64_t transcript_cap = 0;
};

struct TerminalSection {
  TerminalPlan plan;
  TerminalIntent intent;
};

// `terminal_device`: the launcher's first terminal stream ("major:minor", "" = none);
// `terminal_fds`: which of its fds 0-2 are terminals (bit N = fd N).
// `transcript_cap`: [records] transcript's cap in bytes, 0 when the transcript is off.
TerminalSection plan_terminal(const TerminalConfig& config, const std::string& terminal_device, unsigned terminal_fds,
                              uint64_t transcript_cap = 0);

}  // namespace cordon
