#include "launcher/commands/host_tools.h"

#include "launcher/inputs/paths.h"
#include "launcher/process/subprocess.h"

namespace cordon {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

HostTool find_host_tool(const std::string& name, const std::string& package) {
  HostTool tool{name, find_system_binary(name), ""};
  if (tool.path.empty()) return tool;
  tool.version = first_line(run_capture({tool.path, "--version"}).output);
  // Debian's 2023 pasta prints "pasta unknown version": its package says which it is.
  if (tool.version.find("unknown version") != std::string::npos) {
    const std::string dpkg = find_system_binary("dpkg-query");
    // Its output holds stderr too: only a successful query is a version.
    CapturedRun query = dpkg.empty() ? CapturedRun{} : run_capture({dpkg, "-W", "-f=${Version}", package});
    if (query.exit_code == 0 && !query.output.empty())
      tool.version = "package " + package + " " + first_line(query.output) + "; " + name + " itself prints no version";
  }
  return tool;
}

}  // namespace cordon
