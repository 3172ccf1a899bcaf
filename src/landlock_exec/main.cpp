// cordon-landlock RULES -- COMMAND [ARGS...]: the Landlock step. bwrap runs it in place of the
// session's command, after its mounts and its seccomp filter: it enforces the ruleset the
// launcher planned from the same mounts (RULES: /dev/.cordon-landlock, the sentinel check 33
// must fail to read afterwards; /run/cordon/landlock where /dev is the host's) and execs the command,
// which inherits the ruleset with everything it starts. A failure runs nothing: exit 125 with
// what failed (126/127 when the command cannot be executed or found, as a shell says).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/print.h"
#include "common/text.h"
#include "landlock_exec/apply.h"

namespace {

constexpr int kStepFailed = 125;

int fail(const std::string& message) {
  cordon::print_err("cordon-landlock: error: " + cordon::terminal_safe(message) + "\n");
  return kStepFailed;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[2], "--") != 0) return fail("usage: cordon-landlock RULES -- COMMAND [ARGS...]");
  if (std::string problem = cordon::landlock::enforce_rules_file(argv[1]); !problem.empty())
    return fail(problem + " (nothing ran; [sandbox] landlock = \"off\" launches without this layer)");
  ::execvp(argv[3], argv + 3);
  const int err = errno;
  cordon::print_err(std::string("cordon-landlock: ") + cordon::terminal_safe(argv[3]) + ": " + std::strerror(err) +
                    "\n");
  return err == ENOENT ? 127 : 126;
}
