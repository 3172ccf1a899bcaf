// The sandbox runtime this host offers (bwrap, pasta): where cordon finds each and the version
// it reports. `cordon doctor` checks them, `cordon --version` prints them for a bug report.
#pragma once

#include <string>

namespace cordon {

struct HostTool {
  std::string name;     // "bwrap"
  std::string path;     // "" = none in kSystemBinaryDirs (launcher/inputs/paths.h)
  std::string version;  // the first line of its --version (or its package's version); "" = none
};

// What the program at `path` says its version is: the first line of its --version; a program
// that prints "unknown version" (Debian 12's pasta) is named by its Debian `package`'s version.
// `answered` is false when --version failed (then `text` is what it printed, maybe nothing).
struct ToolVersion {
  std::string text;
  bool answered = false;
};
ToolVersion tool_version(const std::string& path, const std::string& name, const std::string& package);

// Finds `name` where the launcher looks for it and asks it for its version (tool_version).
HostTool find_host_tool(const std::string& name, const std::string& package);

// The first line of `text` (all of it when there is no line break).
std::string first_line(const std::string& text);

}  // namespace cordon
