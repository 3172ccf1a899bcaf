#include "launcher/record/tool_versions.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "common/build_config.h"
#include "launcher/inputs/paths.h"
#include "launcher/inputs/state_dirs.h"
#include "launcher/process/subprocess.h"
#include "launcher/record/host_tools.h"

namespace cordon {
namespace {

// "path size mtime" identifies one build of a binary; "v2" lines hold tool_version's answer
// (a cache of the first form held "pasta unknown version", which no longer matches).
std::string binary_key(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return "v2 " + path + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

std::string cached_version(const std::string& cache_file, const std::string& binary, const std::string& name,
                           const std::string& package) {
  const std::string key = binary_key(binary);
  if (key.empty()) return {};
  std::ifstream in(cache_file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + "\t", 0) == 0) return line.substr(key.size() + 1);
  const ToolVersion version = tool_version(binary, name, package);
  if (!version.answered) return version.text;  // not cached: ask again next time
  // Best effort: a cache that cannot be written only costs the next launch a process.
  std::ofstream out(cache_file, std::ios::app);
  if (out) out << key << '\t' << version.text << '\n';
  return version.text;
}

}  // namespace

ToolVersions tool_versions(const HostFacts& facts, const SandboxPlan& plan) {
  std::string cache = tool_versions_cache(sessions_dir(facts));
  ToolVersions v;
  v.cordon = build::kVersion;
  v.bwrap = cached_version(cache, plan.argv.empty() ? facts.bwrap_path : plan.argv[0], "bwrap", "bubblewrap");
  if (plan.intent.network.jailed()) v.pasta = cached_version(cache, find_system_binary("pasta"), "pasta", "passt");
  return v;
}

}  // namespace cordon
