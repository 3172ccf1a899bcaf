// Errors carried as exceptions with context: what failed and how to fix it.
// Thrown inside libraries, caught once at the CLI edge, which maps them to exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace cordon {

// Exit statuses used by the launcher itself (the sandboxed command's own status is passed through).
inline constexpr int kExitConfigError = 2;      // invalid configuration or usage: nothing launched
inline constexpr int kExitLaunchRefused = 125;  // a mechanism is missing or failed: nothing launched

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

// Configuration problems: always exit status 2, message already carries file:line:column.
class ConfigError : public Error {
 public:
  explicit ConfigError(const std::string& what) : Error(what, {}, kExitConfigError) {}
};

// "context: strerror(errno)" for system call failures.
std::string errno_text(const std::string& context, int err);

// The symbolic name of an errno value: "EPERM", "ENOENT", ...; "success" for 0, "errno N" for
// a value the C library has no name for.
std::string errno_name(int err);

}  // namespace cordon
