#include "launcher/fs/mounts.h"

#include "common/credential_files.h"
#include "common/intent.h"
#include "common/paths.h"

namespace cordon {
namespace {

void add(std::vector<std::string>& args, std::initializer_list<std::string> items) { args.insert(args.end(), items); }

// A tmpfs the sandbox writes, in host RAM: capped by filesystem.tmpfs_size_bytes (bwrap --size).
void writable_tmpfs(const Config& config, std::vector<std::string>& args, const std::string& dir) {
  if (config.filesystem.tmpfs_size_bytes > 0) add(args, {"--size", std::to_string(config.filesystem.tmpfs_size_bytes)});
  add(args, {"--tmpfs", dir});
}

// A read-write bind by descriptor (BoundPath): `source` is what the launcher opens.
void bind_fd(MountPlan& plan, int& next_fd, const std::string& source, const std::string& dest) {
  const int fd = next_fd++;
  plan.bound.push_back({source, dest, fd});
  add(plan.args, {"--bind-fd", std::to_string(fd), dest});
  plan.writable.push_back(dest);
}

// A control entry lies in a state directory the sandbox writes, so its source is opened like
// the read-write binds: by descriptor, no link followed (a link planted there is refused).
void bind_fd_read_only(MountPlan& plan, int& next_fd, const std::string& source, const std::string& dest) {
  const int fd = next_fd++;
  plan.bound.push_back({source, dest, fd, true});
  add(plan.args, {"--ro-bind-fd", std::to_string(fd), dest});
}

}  // namespace

std::string resolved_or_same(const std::map<std::string, std::string>& resolved, const std::string& path) {
  auto it = resolved.find(path);
  return it != resolved.end() && !it->second.empty() ? it->second : path;
}

std::string siblings_mask(const Config& config, const HostFacts& facts) {
  // The system view shows no sibling at all: the workspace's parents exist only as the way to it.
  if (!config.workspace.hide_siblings || config.filesystem.view == RootView::System) return {};
  const std::string& ws = facts.workspace;
  std::string parent = ws.substr(0, ws.rfind('/'));
  if (parent.empty()) return {};  // the workspace is a top-level directory: nothing to hide
  // Already masked (/tmp, /run, the home); the operating system's own trees, where tools
  // live; or a top-level directory that holds them (/opt, /var): hiding those would hide the
  // agent's toolchain. Anything below /opt or /var (e.g. /var/tmp/x) is hidden.
  for (const char* covered : {"/tmp", "/run"})
    if (path_within(parent, covered)) return {};
  // A home of "/" masks nothing and so covers nothing here.
  if (facts.home != "/" && path_within(parent, facts.home)) return {};
  if (!facts.account_home.empty() && path_within(parent, facts.account_home)) return {};
  for (const char* system : {"/usr", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/boot", "/proc",
                             "/sys", "/dev", "/snap", "/nix"})
    if (path_within(parent, system)) return {};
  if (parent == "/opt" || parent == "/var") return {};
  return parent;
}

namespace {

// 1. The root: the system view's roots read-only (the usr-merge links as links), or with
//    view = "host" the whole host root read-only; fresh /dev and /proc either way.
void add_root(const Config& config, const HostFacts& facts, std::vector<std::string>& a) {
  if (config.filesystem.view == RootView::Host) {
    add(a, {"--ro-bind", "/", "/"});
  } else {
    // bwrap's root is an empty tmpfs: only what is bound here (and later) exists inside.
    for (const RootEntry& root : facts.view_roots) {
      if (root.link_target.empty()) add(a, {"--ro-bind", root.path, root.path});
      else add(a, {"--symlink", root.link_target, root.path});
    }
  }
  add(a, {"--dev", "/dev"});
  // /proc/sys read-only over the fresh proc: bwrap covers it only in setuid mode, and a
  // sandbox whose uid owns the sysctls (kuid 0 when launched by root) could write them.
  if (config.filesystem.proc == ProcMode::Fresh) {
    add(a, {"--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"});
    // Likewise /proc/sysrq-trigger (owner-writable by uid 0: it can reboot the machine).
    if (facts.exists("/proc/sysrq-trigger")) add(a, {"--ro-bind", "/proc/sysrq-trigger", "/proc/sysrq-trigger"});
  } else {
    add(a, {"--ro-bind", "/proc", "/proc"});
  }
}

// 2. tmpfs masks: /tmp (IDE sockets), /run (runtime sockets, secrets); /run/user and
//    /run/secrets stay present as empty tmpfs where the host has them.
void add_runtime_masks(const Config& config, const HostFacts& facts, std::vector<std::string>& a) {
  writable_tmpfs(config, a, "/tmp");
  writable_tmpfs(config, a, "/run");
  // The system view has no /var but this: a fresh, empty place for temporary files.
  if (config.filesystem.view == RootView::System) writable_tmpfs(config, a, "/var/tmp");
  for (const char* dir : {"/run/user", "/run/secrets"})
    if (facts.exists(dir)) writable_tmpfs(config, a, dir);
  if (!facts.resolv_conf_target.empty())  // keep name resolution working under the /run mask
    add(a, {"--ro-bind", facts.resolv_conf_target, facts.resolv_conf_target});
}

// 3. Inverted home: empty tmpfs, then only allow-listed entries bound back.
void add_home(const Config& config, const AgentProfile& profile, const HostFacts& facts, MountPlan& plan,
              int& next_fd) {
  const std::string& home = facts.home;
  // The account's own home, when $HOME is elsewhere: nothing of it stays visible either (its
  // tmpfs first, so a $HOME inside it is mounted on top).
  if (!facts.account_home.empty() && !path_within(facts.account_home, home))
    add(plan.args, {"--tmpfs", facts.account_home});
  writable_tmpfs(config, plan.args, home);
  for (const auto& entry : config.home.keep_read_only) {
    std::string path = home + "/" + entry;
    if (facts.exists(path)) add(plan.args, {"--ro-bind", path, path});
  }
  for (const auto& entry : profile.home) {
    std::string path = home + "/" + entry;
    if (!facts.exists(path)) continue;  // nothing to keep yet; the agent starts fresh
    bind_fd(plan, next_fd, resolved_or_same(facts.real_home_entries, path), path);
  }
  // [home] caches, from cordon's store for this profile (fs/home_caches.h).
  for (const auto& cache : config.home.caches)
    if (auto it = facts.cache_sources.find(cache); it != facts.cache_sources.end() && !it->second.empty())
      bind_fd(plan, next_fd, it->second, home + "/" + cache);
  // Over the state entries: the agent's control entries, read-only (the plan refused any it
  // could not bind so).
  for (const auto& entry : profile.control) {
    const std::string path = home + "/" + entry;
    auto fact = facts.control_entries.find(path);
    if (fact != facts.control_entries.end() && !fact->second.source.empty())
      bind_fd_read_only(plan, next_fd, fact->second.source, path);
  }
}

// 5. Masks, after every bind they could sit under: cordon's empty read-only file, so
//    readers see nothing rather than an error (a bound /dev/null is unreadable: binds are nodev).
void add_file_masks(const Config& config, const HostFacts& facts, std::vector<std::string>& a) {
  const std::string empty = mask_source(facts);
  auto mask = [&](const std::string& path) { add(a, {"--ro-bind", empty, path}); };
  for (const auto& entry : home_masked_files()) mask(facts.home + "/" + entry);
  for (const auto& file : system_credential_files())
    if (facts.exists(file)) mask(file);
  for (const auto& file : config.filesystem.masks)
    if (facts.exists(file)) mask(file);
  // A root launch's uid owns what only root may read in /etc (/etc/ssl/private, service
  // credentials): a file becomes the empty file, a directory an empty read-only tmpfs.
  for (const auto& entry : facts.private_etc) {
    if (entry.directory) add(a, {"--tmpfs", entry.path, "--remount-ro", entry.path});
    else mask(entry.path);
  }
}

}  // namespace

MountPlan plan_mounts(const Config& config, const AgentProfile& profile, const HostFacts& facts,
                      const WorkspaceMounts& workspace, const std::vector<std::string>& session_args, int next_fd) {
  MountPlan plan;
  auto& a = plan.args;
  add_root(config, facts, a);
  add_runtime_masks(config, facts, a);
  // The workspace's siblings (other projects) are hidden: a tmpfs over its parent, before the
  // workspace itself is bound back in step 4; read-only once everything below it is mounted.
  const std::string siblings = siblings_mask(config, facts);
  if (!siblings.empty()) add(a, {"--tmpfs", siblings});
  // Read-only additions to the system view ([filesystem] read), before the home and the
  // workspace, which may lie below one of them.
  if (config.filesystem.view == RootView::System)
    for (const auto& path : config.filesystem.read)
      if (facts.exists(path)) add(a, {"--ro-bind", path, path});
  add_home(config, profile, facts, plan, next_fd);

  // 4. The workspace, read-write, by descriptor (BoundPath).
  bind_fd(plan, next_fd, workspace.path, workspace.path);
  // 4a. Its footholds (git's config and hooks, [workspace] protect), read-only (workspace/footholds.h).
  a.insert(a.end(), workspace.read_only_args.begin(), workspace.read_only_args.end());
  add_file_masks(config, facts, a);

  // 6. Extra writable paths come after the masks, so one socket can be punched through.
  for (const auto& path : config.filesystem.writable)
    bind_fd(plan, next_fd, resolved_or_same(facts.real_writable, path), path);

  // 7. Generated files in a private directory that is read-only inside.
  add(a, {"--tmpfs", kSessionDir});
  a.insert(a.end(), session_args.begin(), session_args.end());
  add(a, {"--remount-ro", kSessionDir});

  // 8. cordon's helpers, read-only even when they live under the home or the workspace; and a
  // configured agent binary outside the view (its support files need [filesystem] read).
  if (facts.exists(facts.libexec_dir)) add(a, {"--ro-bind", facts.libexec_dir, facts.libexec_dir});
  if (config.filesystem.view == RootView::System && !profile.binary.empty() && facts.exists(profile.binary) &&
      !path_within(profile.binary, facts.workspace))  // there it is as writable as the workspace (check 21)
    add(a, {"--ro-bind", profile.binary, profile.binary});

  // 9. The siblings' mask and the account's home (when $HOME is another) become read-only
  // (not recursive: the workspace bind, or a $HOME inside, stays as it is); in the system
  // view the root's own tmpfs too, so nothing can be made beside what was bound.
  if (!siblings.empty()) add(a, {"--remount-ro", siblings});
  if (!facts.account_home.empty() && !path_within(facts.account_home, facts.home))
    add(a, {"--remount-ro", facts.account_home});
  if (config.filesystem.view == RootView::System) add(a, {"--remount-ro", "/"});
  return plan;
}

}  // namespace cordon
