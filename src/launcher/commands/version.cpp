#include "launcher/commands/version.h"

#include "common/build_commit.h"
#include "common/build_config.h"
#include "common/text.h"
#include "launcher/inputs/paths.h"

namespace cordon {

VersionFacts gather_version_facts() {
  return {build::kVersion,
          build::kCommit,
          build::kCommitModified,
          {find_host_tool("bwrap", "bubblewrap"), find_host_tool("pasta", "passt")}};
}

std::string version_report(const VersionFacts& facts) {
  std::string text = "cordon " + terminal_safe(facts.version) + "\n";
  text += "commit: " + terminal_safe(facts.commit);
  if (facts.commit == "unknown") text += " (not built from a git checkout)";
  if (facts.commit_modified) text += " (with uncommitted changes)";
  text += "\n";
  for (const HostTool& tool : facts.tools) {
    text += terminal_safe(tool.name) + ": ";
    if (tool.path.empty()) text += "none found (looked in " + system_binary_dirs_text() + ")";
    else
      text += terminal_safe(tool.path) + " (" +
              (tool.version.empty() ? std::string("it printed no version") : terminal_safe(tool.version)) + ")";
    text += "\n";
  }
  return text;
}

}  // namespace cordon
