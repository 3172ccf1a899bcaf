#include "launcher/fs/mounts.h"

#include "common/credential_files.h"
#include "common/intent.h"
#include "common/paths.h"

namespace cordon {

std::string resolved_or_same(const std::map<std::string, std::string>& resolved, const std::string& path) {
  auto it = resolved.find(path);
  return it != resolved.end() && !it->second.empty() ? it->second : path;
}

std::string siblings_mask(const WorkspaceConfig& workspace, const FilesystemConfig& filesystem,
                          const HostFacts& facts) {
  // The system view shows no sibling at all: the workspace's parents exist only as the way to it.
  if (!workspace.hide_siblings || filesystem.view == RootView::System) return {};
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

// The steps in order, each a MountStep.
class MountList {
 public:
  explicit MountList(const FilesystemConfig& config) : config_(config) {}
  void add(MountOp op, const std::string& source, const std::string& dest, MountRole role) {
    mounts_.push_back({op, source, dest, role});
  }
  void bind(MountOp op, const std::string& path, MountRole role) { add(op, path, path, role); }
  // A tmpfs the sandbox writes, in host RAM: capped by filesystem.tmpfs_size_bytes (bwrap --size).
  void writable_tmpfs(const std::string& dir, MountRole role) {
    mounts_.push_back({MountOp::Tmpfs, "", dir, role, config_.tmpfs_size_bytes});
  }
  void tmpfs(const std::string& dir, MountRole role) { add(MountOp::Tmpfs, "", dir, role); }
  void remount_ro(const std::string& dir, MountRole role) { add(MountOp::RemountRo, "", dir, role); }
  void append(const std::vector<MountStep>& mounts) { mounts_.insert(mounts_.end(), mounts.begin(), mounts.end()); }
  std::vector<MountStep> take() { return std::move(mounts_); }

 private:
  const FilesystemConfig& config_;
  std::vector<MountStep> mounts_;
};

// 1. The root: the system view's roots read-only (the usr-merge links as links), or with
//    view = "host" the whole host root read-only; fresh /dev and /proc either way.
void add_root(const FilesystemConfig& config, const HostFacts& facts, MountList& m) {
  if (config.view == RootView::Host) {
    m.bind(MountOp::RoBind, "/", MountRole::SystemRoot);
  } else {
    // bwrap's root is an empty tmpfs: only what is bound here (and later) exists inside.
    for (const RootEntry& root : facts.view_roots) {
      if (root.link_target.empty()) m.bind(MountOp::RoBind, root.path, MountRole::SystemRoot);
      else m.add(MountOp::Symlink, root.link_target, root.path, MountRole::SystemRoot);
    }
  }
  m.add(MountOp::Dev, "", "/dev", MountRole::Devices);
  // /proc/sys read-only over the fresh proc: bwrap covers it only in setuid mode, and a
  // sandbox whose uid owns the sysctls (kuid 0 when launched by root) could write them.
  if (config.proc == ProcMode::Fresh) {
    m.add(MountOp::Proc, "", "/proc", MountRole::Proc);
    m.bind(MountOp::RoBind, "/proc/sys", MountRole::ProcGuard);
    // Likewise /proc/sysrq-trigger (owner-writable by uid 0: it can reboot the machine).
    if (facts.exists("/proc/sysrq-trigger")) m.bind(MountOp::RoBind, "/proc/sysrq-trigger", MountRole::ProcGuard);
  } else {
    m.bind(MountOp::RoBind, "/proc", MountRole::Proc);
  }
}

// 2. tmpfs masks: /tmp (IDE sockets), /run (runtime sockets, secrets); /run/user and
//    /run/secrets stay present as empty tmpfs where the host has them.
void add_runtime_masks(const FilesystemConfig& config, const HostFacts& facts, MountList& m) {
  m.writable_tmpfs("/tmp", MountRole::RuntimeTmpfs);
  m.writable_tmpfs("/run", MountRole::RuntimeTmpfs);
  // The system view has no /var but this: a fresh, empty place for temporary files.
  if (config.view == RootView::System) m.writable_tmpfs("/var/tmp", MountRole::RuntimeTmpfs);
  for (const char* dir : {"/run/user", "/run/secrets"})
    if (facts.exists(dir)) m.writable_tmpfs(dir, MountRole::RuntimeTmpfs);
  if (!facts.resolv_conf_target.empty())  // keep name resolution working under the /run mask
    m.bind(MountOp::RoBind, facts.resolv_conf_target, MountRole::ResolvTarget);
}

// 3. Inverted home: empty tmpfs, then only allow-listed entries bound back.
void add_home(const HomeConfig& config, const AgentProfile& profile, const HostFacts& facts, MountList& m) {
  const std::string& home = facts.home;
  // The account's own home, when $HOME is elsewhere: nothing of it stays visible either (its
  // tmpfs first, so a $HOME inside it is mounted on top).
  if (!facts.account_home.empty() && !path_within(facts.account_home, home))
    m.tmpfs(facts.account_home, MountRole::AccountHome);
  m.writable_tmpfs(home, MountRole::HomeTmpfs);
  for (const auto& entry : config.keep_read_only) {
    std::string path = home + "/" + entry;
    if (facts.exists(path)) m.bind(MountOp::RoBind, path, MountRole::HomeKeep);
  }
  for (const auto& entry : profile.home) {
    std::string path = home + "/" + entry;
    if (!facts.exists(path)) continue;  // nothing to keep yet; the agent starts fresh
    m.add(MountOp::BindFd, resolved_or_same(facts.real_home_entries, path), path, MountRole::HomeEntry);
  }
  // [home] caches, from cordon's store for this profile (fs/home_caches.h).
  for (const auto& cache : config.caches)
    if (auto it = facts.cache_sources.find(cache); it != facts.cache_sources.end() && !it->second.empty())
      m.add(MountOp::BindFd, it->second, home + "/" + cache, MountRole::Cache);
  // Over the state entries: the agent's control entries, read-only (the plan refused any it
  // could not bind so). They lie in a state directory the sandbox writes, so each is opened
  // like the read-write binds: by descriptor, no link followed (a link planted there is refused).
  for (const auto& entry : profile.control) {
    const std::string path = home + "/" + entry;
    auto fact = facts.control_entries.find(path);
    if (fact != facts.control_entries.end() && !fact->second.source.empty())
      m.add(MountOp::RoBindFd, fact->second.source, path, MountRole::Control);
  }
}

// 5. Masks, after every bind they could sit under: cordon's empty read-only file, so
//    readers see nothing rather than an error (a bound /dev/null is unreadable: binds are nodev).
void add_file_masks(const FilesystemConfig& config, const HostFacts& facts, MountList& m) {
  const std::string empty = mask_source(facts);
  auto mask = [&](const std::string& path, MountRole role) { m.add(MountOp::RoBind, empty, path, role); };
  for (const auto& entry : home_masked_files()) mask(facts.home + "/" + entry, MountRole::Mask);
  for (const auto& file : system_credential_files())
    if (facts.exists(file)) mask(file, MountRole::Mask);
  for (const auto& file : config.masks)
    if (facts.exists(file)) mask(file, MountRole::Mask);
  // A root launch's uid owns what only root may read in /etc (/etc/ssl/private, service
  // credentials): a file becomes the empty file, a directory an empty read-only tmpfs.
  for (const auto& entry : facts.private_etc) {
    if (!entry.directory) {
      mask(entry.path, MountRole::PrivateMask);
      continue;
    }
    m.tmpfs(entry.path, MountRole::PrivateMask);
    m.remount_ro(entry.path, MountRole::PrivateMask);
  }
}

}  // namespace

FilesystemSection plan_filesystem(const FilesystemConfig& fs, const HomeConfig& home, const std::string& siblings,
                                  const AgentProfile& profile, const HostFacts& facts,
                                  const std::vector<MountStep>& workspace) {
  MountList m(fs);
  add_root(fs, facts, m);
  add_runtime_masks(fs, facts, m);
  // The workspace's siblings (other projects) are hidden: a tmpfs over its parent, before the
  // workspace itself is bound back in step 4; read-only once everything below it is mounted.
  if (!siblings.empty()) m.tmpfs(siblings, MountRole::Siblings);
  // Read-only additions to the system view ([filesystem] read), before the home and the
  // workspace, which may lie below one of them.
  if (fs.view == RootView::System)
    for (const auto& path : fs.read)
      if (facts.exists(path)) m.bind(MountOp::RoBind, path, MountRole::ReadPath);
  add_home(home, profile, facts, m);

  // 4. The workspace, read-write by descriptor, and its footholds read-only (workspace/).
  m.append(workspace);
  add_file_masks(fs, facts, m);

  // 6. Extra writable paths come after the masks, so one socket can be punched through.
  for (const auto& path : fs.writable)
    m.add(MountOp::BindFd, resolved_or_same(facts.real_writable, path), path, MountRole::Writable);

  // 7. Generated files in a private directory that is read-only inside.
  m.tmpfs(kSessionDir, MountRole::SessionDir);
  m.add(MountOp::DataFiles, "", kSessionDir, MountRole::SessionDir);
  m.remount_ro(kSessionDir, MountRole::SessionDir);

  // 8. cordon's helpers, read-only even when they live under the home or the workspace; and a
  // configured agent binary outside the view (its support files need [filesystem] read).
  if (facts.exists(facts.libexec_dir)) m.bind(MountOp::RoBind, facts.libexec_dir, MountRole::Libexec);
  if (fs.view == RootView::System && !profile.binary.empty() && facts.exists(profile.binary) &&
      !path_within(profile.binary, facts.workspace))  // there it is as writable as the workspace (check 21)
    m.bind(MountOp::RoBind, profile.binary, MountRole::AgentBinary);

  // 9. The siblings' mask and the account's home (when $HOME is another) become read-only
  // (not recursive: the workspace bind, or a $HOME inside, stays as it is); in the system
  // view the root's own tmpfs too, so nothing can be made beside what was bound.
  if (!siblings.empty()) m.remount_ro(siblings, MountRole::ReadOnlyAfter);
  if (!facts.account_home.empty() && !path_within(facts.account_home, facts.home))
    m.remount_ro(facts.account_home, MountRole::AccountHome);
  if (fs.view == RootView::System) m.remount_ro("/", MountRole::ReadOnlyAfter);
  return {m.take()};
}

namespace {

void add(std::vector<std::string>& args, std::initializer_list<std::string> items) { args.insert(args.end(), items); }

// The generated files: readable by anyone inside, like the files they stand in for (bwrap's
// default is 0600, which reads as a root-only file to check 30).
void add_files(std::vector<std::string>& args, const std::vector<DataFile>& files) {
  for (const auto& f : files) add(args, {"--perms", "0444", "--ro-bind-data", std::to_string(f.fd), f.dest});
}

}  // namespace

// The steps are taken by value: their paths move into the arguments.
RenderedMounts render_mounts(std::vector<MountStep> mounts, std::vector<DataFile> files, int first_fd) {
  RenderedMounts r;
  int next_fd = first_fd;
  for (auto& f : files) f.fd = next_fd++;
  auto& a = r.args;
  a.reserve(mounts.size() * 3 + files.size() * 5);
  auto bind = [&](const char* option, MountStep& m) {
    a.emplace_back(option);
    a.push_back(std::move(m.source));
    a.push_back(std::move(m.dest));
  };
  for (MountStep& m : mounts) {
    switch (m.op) {
      case MountOp::RoBind: bind("--ro-bind", m); break;
      case MountOp::Bind: bind("--bind", m); break;
      case MountOp::Symlink: bind("--symlink", m); break;
      case MountOp::DevBind: bind("--dev-bind", m); break;
      case MountOp::Dev: add(a, {"--dev", std::move(m.dest)}); break;
      case MountOp::Proc: add(a, {"--proc", std::move(m.dest)}); break;
      case MountOp::Tmpfs:
        if (m.size > 0) add(a, {"--size", std::to_string(m.size)});
        add(a, {"--tmpfs", std::move(m.dest)});
        break;
      case MountOp::RemountRo: add(a, {"--remount-ro", std::move(m.dest)}); break;
      case MountOp::DataFiles: add_files(a, files); break;
      case MountOp::BindFd:
      case MountOp::RoBindFd: {
        const bool read_only = m.op == MountOp::RoBindFd;
        const int fd = next_fd++;
        add(a, {read_only ? "--ro-bind-fd" : "--bind-fd", std::to_string(fd), m.dest});
        if (!read_only) r.writable.push_back(m.dest);
        r.bound.push_back({std::move(m.source), std::move(m.dest), fd, read_only});
        break;
      }
    }
  }
  r.files = std::move(files);
  return r;
}

std::vector<std::string> writable_paths(const std::vector<MountStep>& mounts) {
  std::vector<std::string> writable;
  for (const MountStep& m : mounts)
    if (m.op == MountOp::BindFd) writable.push_back(m.dest);
  return writable;
}

std::vector<PermissionRoot> permission_roots(const std::vector<MountStep>& mounts) {
  std::vector<PermissionRoot> roots;
  for (const MountStep& m : mounts) {
    if (m.role == MountRole::HomeEntry || m.role == MountRole::Cache) roots.push_back({m.source, true});
    // Its git dirs are found and walked at teardown; the rest of the project is the operator's.
    if (m.role == MountRole::Workspace) roots.push_back({m.source, false});
  }
  return roots;
}

}  // namespace cordon
