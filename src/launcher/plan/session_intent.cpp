#include "launcher/plan/session_intent.h"

#include "common/build_config.h"

namespace cordon {

SessionIntent describe_session(const Config& config, const AgentProfile& profile, const HostFacts& f,
                               const WorkspaceSection& workspace, const EnvList& env,
                               const std::vector<std::string>& writable) {
  SessionIntent s;
  s.config.path = config.source.file;
  s.config.fixed_path = build::kConfigPath;
  s.config.found = config.file_found;
  s.agent.name = profile.name;
  s.agent.home = profile.home;
  s.agent.control = profile.control;
  s.home.keep_read_only = config.home.keep_read_only;
  for (const auto& cache : config.home.caches)
    if (auto it = f.cache_sources.find(cache); it != f.cache_sources.end() && !it->second.empty())
      s.home.caches.push_back(cache);
  s.home.path = f.home;
  s.home.account_path = f.account_home;
  s.workspace = f.workspace;
  s.workspace_mode = workspace.review ? "review" : "direct";
  s.writable = writable;
  s.filesystem.view = config.filesystem.view == RootView::System ? "system" : "host";
  s.filesystem.tmpfs_size_bytes = config.filesystem.tmpfs_size_bytes;
  if (config.filesystem.view == RootView::System) s.filesystem.read = config.filesystem.read;
  for (const auto& entry : f.private_etc) s.filesystem.private_masked.push_back(entry.path);
  s.workspace_protected = workspace.footholds.protected_paths;
  s.workspace_protect_absent = workspace.footholds.absent;
  for (const auto& [name, value] : env) s.env_names.push_back(name);
  s.libexec = f.libexec_dir;
  // A shipped profile's shim copy only when it is installed: `--agent claude` without a shim
  // runs whatever the command names, and check 21 has no binary to hold to account.
  const std::string binary = agent_binary(profile, f);
  s.agent.binary = profile.binary.empty() && !f.exists(binary) ? "" : binary;
  s.host_namespaces = f.namespaces;
  return s;
}

}  // namespace cordon
