#include "launcher/run/command_lookup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <sstream>
#include <vector>

#include "common/error.h"

namespace cordon {
namespace {

constexpr int kExitNotExecutable = 126;  // as shells: found, cannot be executed
constexpr int kExitNotFound = 127;       // as shells: not found

// "" when `path` can be executed; otherwise why not.
std::string why_not_executable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "missing";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (::access(path.c_str(), X_OK) != 0) return "not executable (permission denied)";
  return "";
}

}  // namespace

void check_command_runnable(const std::string& command, const std::string& path_value) {
  if (command.find('/') != std::string::npos) {
    std::string why = why_not_executable(command);
    if (why.empty()) return;
    if (why == "missing")
      throw Error("command not found: " + command + " does not exist", "check the path; nothing ran", kExitNotFound);
    throw Error("cannot execute " + command + ": " + why,
                "give an executable file (chmod +x, or run it with its interpreter); nothing ran", kExitNotExecutable);
  }
  const std::string search = path_value.empty() ? "/bin:/usr/bin" : path_value;
  std::string first_unusable;
  std::stringstream dirs(search);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + command;
    std::string why = why_not_executable(candidate);
    if (why.empty()) return;
    if (why != "missing" && why != "a directory" && first_unusable.empty()) first_unusable = candidate;
  }
  if (!first_unusable.empty())
    throw Error("cannot execute " + first_unusable + ": not executable (permission denied)",
                "make it executable (chmod +x), or run it with its interpreter; nothing ran", kExitNotExecutable);
  throw Error("command not found: " + command + " (the sandbox's PATH: " + search + ")",
              "give its full path, or install it in a directory on that PATH; nothing ran", kExitNotFound);
}

}  // namespace cordon
