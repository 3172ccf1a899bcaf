#include "launcher/record/host_tools.h"

#include "launcher/inputs/paths.h"
#include "launcher/process/subprocess.h"

namespace cordon {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

ToolVersion tool_version(const std::string& path, const std::string& name, const std::string& package) {
  const CapturedRun run = run_capture({path, "--version"});
  ToolVersion version{first_line(run.output), run.exit_code == 0 && !run.output.empty()};
  // Debian's 2023 pasta prints "pasta unknown version": its package says which it is.
  if (version.text.find("unknown version") != std::string::npos) {
    const std::string dpkg = find_system_binary("dpkg-query");
    // Its output holds stderr too: only a successful query is a version.
    CapturedRun query = dpkg.empty() ? CapturedRun{} : run_capture({dpkg, "-W", "-f=${Version}", package});
    if (query.exit_code == 0 && !query.output.empty())
      version.text = "package " + package + " " + first_line(query.output) + "; " + name + " itself prints no version";
  }
  return version;
}

HostTool find_host_tool(const std::string& name, const std::string& package) {
  HostTool tool{name, find_system_binary(name), ""};
  if (!tool.path.empty()) tool.version = tool_version(tool.path, name, package).text;
  return tool;
}

}  // namespace cordon
