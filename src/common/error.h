// Errors carried as exceptions with context: what failed and how to fix it.
// Thrown inside libraries, caught once at the CLI edge, which maps them to exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace cordon {

// cordon's own exit statuses: the numbers of the one table (launcher/cli/exit_table.h), which
// `cordon --help` prints and README.md "## Exit codes" repeats.
// `cordon run` passes the command's status through (0-255, 128+N for signal N) and exits
// kExitLaunchRefused for every failure of its own, a configuration or usage error included:
// 2 is an ordinary command status (grep, make) and must not mean "cordon refused".
inline constexpr int kExitSuccess = 0;
inline constexpr int kExitChecksFailed = 1;     // verify: a check FAILed or a probe ESCAPED; doctor: a FAIL row
inline constexpr int kExitConfigError = 2;      // invalid configuration or usage (not `run`): nothing launched
inline constexpr int kExitInconclusive = 3;     // verify: nothing FAILed or ESCAPED, but the audit is incomplete
inline constexpr int kExitLaunchRefused = 125;  // a mechanism is missing or failed: nothing launched
// run: the command cannot be executed / was not found, as shells say (nothing ran).
inline constexpr int kExitNotExecutable = 126;
inline constexpr int kExitNotFound = 127;
// 128 + N: cordon was interrupted by signal N before the sandbox started (nothing ran).
inline constexpr int kExitSignalBase = 128;

// The helpers' own statuses: internal, `cordon verify` maps them onto the table above.
// cordon-battery exits with its FAIL count, or kBatteryExitUsage; cordon-probe as below.
inline constexpr int kBatteryExitUsage = 64;  // above any FAIL count
inline constexpr int kProbeExitOk = 0;
inline constexpr int kProbeExitIncomplete = 2;  // a probe was INCONCLUSIVE (or none ran)
inline constexpr int kProbeExitLeaking = 3;     // a probe ESCAPED
inline constexpr int kProbeExitUsage = 64;

class Error : public std::runtime_error {
 public:
  Error(const std::string& what, std::string fix = {}, int exit_code = kExitLaunchRefused)
      : std::runtime_error(what), fix_(std::move(fix)), exit_code_(exit_code) {}

  const std::string& fix() const { return fix_; }
  int exit_code() const { return exit_code_; }

 private:
  std::string fix_;
  int exit_code_;
};

// Configuration problems: exit status 2 (125 under `run`); the message carries file:line:column.
class ConfigError : public Error {
 public:
  explicit ConfigError(const std::string& what, std::string fix = {}) : Error(what, std::move(fix), kExitConfigError) {}
};

// "context: strerror(errno)" for system call failures.
std::string errno_text(const std::string& context, int err);

// The symbolic name of an errno value: "EPERM", "ENOENT", ...; "success" for 0, "errno N" for
// a value the C library has no name for.
std::string errno_name(int err);

}  // namespace cordon
