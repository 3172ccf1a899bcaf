// Terminal isolation (28): no terminal the sandbox holds is the operator's. The launcher
// names its own terminal in the session file; from inside, each standard stream and the
// controlling terminal (/dev/tty, whose real device TIOCGDEV reports) is compared against it.
#include <unistd.h>

#include <string>

#include "battery/check.h"
#include "common/tty_device.h"

namespace cordon::battery {
namespace {

// "fd 1" / "the controlling terminal" holding the operator's terminal; "" when none does.
std::string holder_of(const std::string& operator_device, std::string& seen) {
  std::string holder;
  for (int fd = 0; fd < 3; ++fd) {
    auto device = terminal_device(fd);
    if (!device) continue;
    seen += (seen.empty() ? "" : ", ") + ("fd " + std::to_string(fd) + " " + device_name(*device));
    if (device_name(*device) == operator_device && holder.empty()) holder = "fd " + std::to_string(fd);
  }
  if (auto ctty = controlling_terminal_device()) {
    seen += (seen.empty() ? "" : ", ") + ("controlling " + device_name(*ctty));
    if (device_name(*ctty) == operator_device && holder.empty()) holder = "the controlling terminal";
  }
  return holder;
}

}  // namespace

Outcome check_private_terminal(const Context& c) {
  std::string seen;
  if (!c.session) {
    holder_of("", seen);  // only what is there
    if (seen.empty()) return pass("no terminal on the standard streams or as controlling terminal");
    return fail(std::string(kNoSession) + ": cannot tell whether these terminals are the operator's (" + seen + ")");
  }
  const TerminalIntent& t = c.session->terminal;
  if (t.operator_device.empty())
    return pass("the launcher's standard streams are not terminals: nothing to relay", "none needed: no terminal");
  if (!t.private_pty)
    return pass("private terminal disabled (terminal.private = false): the sandbox writes to the operator's terminal " +
                    t.operator_device + " unfiltered",
                "none: private terminal disabled by configuration");
  const std::string holder = holder_of(t.operator_device, seen);
  if (!holder.empty()) return fail(holder + " is the operator's terminal " + t.operator_device + " (" + seen + ")");
  if (!controlling_terminal_device())
    return fail("no controlling terminal: the session's private pty is missing (" + (seen.empty() ? "none" : seen) +
                ")");
  return pass("the session's terminals are its own (" + seen + "); the operator's " + t.operator_device +
              " is held only by cordon's relay");
}

}  // namespace cordon::battery
