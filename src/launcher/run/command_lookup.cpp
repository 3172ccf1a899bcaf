#include "launcher/run/command_lookup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <sstream>
#include <vector>

#include "common/build_config.h"
#include "common/error.h"
#include "common/paths.h"
#include "launcher/inputs/paths.h"

namespace cordon {
namespace {

// "" when `path` can be executed; otherwise why not.
std::string why_not_executable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "missing";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (::access(path.c_str(), X_OK) != 0) return "not executable (permission denied)";
  return "";
}

// How to make a hidden command visible: a file in the home through home.keep (relative to the
// home; filesystem.read is refused there), anything else through filesystem.read.
std::string fix_for_hidden(const std::string& real, const std::string& home) {
  if (!home.empty() && home != "/" && path_within(real, home) && real != home) {
    const std::string rel = real.substr(home.size() + 1);
    const std::string dir = rel.find('/') == std::string::npos ? rel : rel.substr(0, rel.rfind('/'));
    return "add \"" + dir + "\" to home.keep in " + std::string(build::kConfigPath) +
           " (read-only in the sandbox's home), or install it under /usr; nothing ran";
  }
  return "add its directory to filesystem.read in " + std::string(build::kConfigPath) +
         ", or install it under /usr; nothing ran";
}

}  // namespace

void check_command_runnable(const std::string& command, const std::string& path_value, const VisibleInside& visible,
                            const std::string& home) {
  if (command.find('/') != std::string::npos) {
    std::string why = why_not_executable(command);
    if (why.empty()) {
      const std::string real = real_path(command);
      if (visible(real)) return;
      throw Error("command " + command + " is outside the sandbox's view (" + real + ")", fix_for_hidden(real, home),
                  kExitNotFound);
    }
    if (why == "missing")
      throw Error("command not found: " + command + " does not exist", "check the path; nothing ran", kExitNotFound);
    throw Error("cannot execute " + command + ": " + why,
                "give an executable file (chmod +x, or run it with its interpreter); nothing ran", kExitNotExecutable);
  }
  const std::string search = path_value.empty() ? "/bin:/usr/bin" : path_value;
  std::string first_unusable, first_hidden;
  std::stringstream dirs(search);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + command;
    std::string why = why_not_executable(candidate);
    if (why.empty() && visible(real_path(candidate))) return;
    if (why.empty()) {
      if (first_hidden.empty()) first_hidden = candidate;
      continue;
    }
    if (why != "missing" && why != "a directory" && first_unusable.empty()) first_unusable = candidate;
  }
  if (!first_unusable.empty())
    throw Error("cannot execute " + first_unusable + ": not executable (permission denied)",
                "make it executable (chmod +x), or run it with its interpreter; nothing ran", kExitNotExecutable);
  if (!first_hidden.empty())
    throw Error("command not found inside the sandbox: " + command + " is " + first_hidden + " (" +
                    real_path(first_hidden) + "), which the sandbox does not see",
                fix_for_hidden(real_path(first_hidden), home), kExitNotFound);
  throw Error("command not found: " + command + " (the sandbox's PATH: " + search + ")",
              "give its full path, or install it in a directory on that PATH; nothing ran", kExitNotFound);
}

}  // namespace cordon
