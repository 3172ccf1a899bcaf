#include "launcher/fs/home_caches.h"

#include <sys/stat.h>

#include <filesystem>

#include "common/print.h"
#include "common/text.h"
#include "launcher/fs/agent_home.h"
#include "launcher/inputs/paths.h"
#include "launcher/inputs/state_dirs.h"

namespace cordon {

std::string cache_store(const HostFacts& facts, const std::string& profile) {
  return state_dir_of(sessions_dir(facts)) + "/caches/" + profile;
}

void make_home_caches(const HomeConfig& config, const std::string& profile, HostFacts& facts) {
  if (config.caches.empty()) return;
  const std::string store = cache_store(facts, profile);
  const std::string state = state_dir_of(sessions_dir(facts));
  // The state directory is cordon's own (0700, like the records it holds); below it, nothing
  // is followed.
  std::error_code ec;
  if (std::filesystem::create_directories(state, ec)) ::chmod(state.c_str(), 0700);
  std::vector<std::string> entries;
  for (const auto& cache : config.caches) entries.push_back("caches/" + profile + "/" + cache);
  CreatedHomeEntries made = create_missing_home_entries(state, entries, EntryShape::Directory);
  for (const auto& problem : made.problems)
    print_err("cordon: could not make the cache " + terminal_safe(problem) + " in " + terminal_safe(state) +
              " (it is not kept)\n");
  for (const auto& cache : config.caches) {
    const std::string dir = store + "/" + cache;
    struct stat st {};
    if (::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) facts.cache_sources[cache] = real_path(dir);
  }
}

}  // namespace cordon
