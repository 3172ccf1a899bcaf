#include "launcher/terminal/terminal_plan.h"

namespace cordon {

// A terminal on the launcher's side gets the private pty, unless the configuration turns it off.
TerminalSection plan_terminal(const TerminalConfig& config, const std::string& terminal_device, unsigned terminal_fds,
                              uint64_t transcript_cap) {
  TerminalSection s;
  s.intent.operator_device = terminal_device;
  s.plan.relay = config.private_pty && terminal_fds != 0;
  s.plan.fds = terminal_fds;
  s.plan.pass = config.pass;
  // stdout and stderr that are not a terminal: filtered only when asked (binary output passes).
  if (config.filter_pipes) s.plan.filter_fds = ~terminal_fds & 0b110U;
  // A transcript keeps what the pipes carry too: through the launcher, unchanged.
  s.plan.transcript_cap = transcript_cap;
  if (transcript_cap != 0) s.plan.record_fds = ~terminal_fds & ~s.plan.filter_fds & 0b110U;
  s.intent.private_pty = s.plan.relay;
  for (size_t i = 0; i + 1 < kTerminalClassCount; ++i)
    if (config.pass.passes(static_cast<TerminalClass>(i)))
      s.intent.pass.emplace_back(terminal_class_name(static_cast<TerminalClass>(i)));
  return s;
}

}  // namespace cordon
