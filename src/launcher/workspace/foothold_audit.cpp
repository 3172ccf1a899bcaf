#include "launcher/workspace/foothold_audit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/error.h"
#include "common/text.h"
#include "common/unique_fd.h"
#include "launcher/workspace/footholds.h"
#include "launcher/workspace/git_config_filter.h"

namespace cordon {
namespace {

constexpr size_t kMaxConfigBytes = 1 << 20;  // larger than any real repository's config

// Splits "a/b/c" into ("a/b", "c").
std::pair<std::string, std::string> split_rel(const std::string& rel) {
  auto slash = rel.rfind('/');
  if (slash == std::string::npos) return {"", rel};
  return {rel.substr(0, slash), rel.substr(slash + 1)};
}

class Auditor {
 public:
  Auditor(std::string workspace, std::string session, const std::vector<std::string>& protected_paths)
      : workspace_(std::move(workspace)), session_(std::move(session)), protected_(protected_paths) {}

  bool open() {
    root_.reset(::open(workspace_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!root_.valid()) return false;
    struct stat st {};
    if (::fstat(root_.get(), &st) == 0) owner_ = st;
    // The quarantine lives in the workspace's own .git when that is a directory (git never
    // reads it), else beside it.
    WorkspaceTree tree(workspace_);
    quarantine_ = std::string(tree.kind(".git") == EntryKind::Directory ? ".git/" : ".") + kQuarantineDir + "/" +
                  session_;
    return true;
  }

  bool is_protected(const std::string& rel) const {
    return std::find(protected_.begin(), protected_.end(), workspace_ + "/" + rel) != protected_.end();
  }

  // Where `rel` goes in the quarantine: the path below .git ("hooks/pre-commit",
  // "modules/sub/config"), or the whole relative path for anything outside .git.
  std::string quarantine_rel(const std::string& rel) const {
    if (rel.rfind(".git/", 0) == 0) return rel.substr(5);
    return rel == ".git" ? "dot-git" : rel;
  }

  // Moves `rel` into the quarantine; returns its new absolute path ("" after a problem).
  std::string move(const std::string& rel, bool clear_exec) {
    auto [dir_rel, name] = split_rel(rel);
    auto [qdir_rel, qname] = split_rel(quarantine_ + "/" + quarantine_rel(rel));
    UniqueFd from(open_beneath(root_.get(), dir_rel, O_RDONLY | O_DIRECTORY));
    UniqueFd to = make_dirs(qdir_rel);
    if (!from.valid() || !to.valid() || ::renameat(from.get(), name.c_str(), to.get(), qname.c_str()) != 0) {
      problems.push_back(errno_text("moving " + workspace_ + "/" + rel + " to the quarantine", errno));
      return "";
    }
    UniqueFd moved(::openat(to.get(), qname.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st {};
    if (clear_exec && moved.valid() && ::fstat(moved.get(), &st) == 0 && S_ISREG(st.st_mode))
      ::fchmod(moved.get(), st.st_mode & 0666);  // nothing in the quarantine runs by accident
    return workspace_ + "/" + qdir_rel + "/" + qname;
  }

  void audit_hooks(const std::string& dir) {
    const std::string hooks = join_rel(dir, "hooks");
    if (is_protected(hooks)) return;
    WorkspaceTree tree(workspace_);
    if (tree.kind(hooks) == EntryKind::Symlink) return link(hooks);
    for (const auto& name : tree.list(hooks)) {
      if (name.size() > 7 && name.compare(name.size() - 7, 7, ".sample") == 0) continue;
      const std::string rel = hooks + "/" + name;
      if (std::string to = move(rel, true); !to.empty()) items.push_back({"hook", workspace_ + "/" + rel, to, ""});
    }
  }

  void audit_config(const std::string& dir, const char* file) {
    const std::string rel = join_rel(dir, file);
    if (is_protected(rel)) return;
    EntryKind kind = WorkspaceTree(workspace_).kind(rel);
    if (kind == EntryKind::Symlink) return link(rel);
    if (kind != EntryKind::File) return;
    UniqueFd dir_fd(open_beneath(root_.get(), dir, O_RDONLY | O_DIRECTORY));
    UniqueFd fd(dir_fd.valid() ? ::openat(dir_fd.get(), file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1);
    struct stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0) {
      problems.push_back(errno_text("reading " + workspace_ + "/" + rel, errno));
      return;
    }
    std::string text;
    if (static_cast<size_t>(st.st_size) <= kMaxConfigBytes) {
      text.resize(static_cast<size_t>(st.st_size));
      ssize_t n = ::read(fd.get(), text.data(), text.size());
      text.resize(n > 0 ? static_cast<size_t>(n) : 0);
    }
    GitConfigScan scan = static_cast<size_t>(st.st_size) <= kMaxConfigBytes ? scan_git_config(text) : GitConfigScan{};
    if (scan.refused.empty() && static_cast<size_t>(st.st_size) > kMaxConfigBytes) scan.refused.emplace_back("size");
    if (scan.clean()) return;
    replace_config(dir_fd.get(), rel, file, st, scan);
  }

  // The filtered config is written beside the original first, so the rename that puts it in
  // place never leaves the repository without one.
  void replace_config(int dir_fd, const std::string& rel, const char* file, const struct stat& st,
                      const GitConfigScan& scan) {
    const char* tmp = ".cordon-config.tmp";
    ::unlinkat(dir_fd, tmp, 0);
    UniqueFd out(::openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 0666));
    // The errno of the call that failed (a short write sets none).
    const std::string context = "rewriting " + workspace_ + "/" + rel;
    std::string failed = out.valid() ? write_all(out.get(), scan.filtered, context) : errno_text(context, errno);
    if (failed.empty() && ::geteuid() == 0 && ::fchown(out.get(), st.st_uid, st.st_gid) != 0)
      failed = errno_text(context, errno);
    out.reset();
    std::string to = failed.empty() ? move(rel, false) : "";
    if (to.empty() || ::renameat(dir_fd, tmp, dir_fd, file) != 0) {
      ::unlinkat(dir_fd, tmp, 0);
      if (!failed.empty()) problems.push_back(failed);
      if (to.empty()) return;
    }
    std::string lost;
    for (size_t i = 0; i < scan.refused.size() && i < 8; ++i) lost += (i ? ", " : "") + scan.refused[i];
    if (scan.refused.size() > 8) lost += " and " + std::to_string(scan.refused.size() - 8) + " more";
    items.push_back({"config", workspace_ + "/" + rel, to, lost});
  }

  // A symlink among git's paths: host git would follow it wherever it points.
  void link(const std::string& rel) {
    if (is_protected(rel)) return;
    if (std::string to = move(rel, false); !to.empty()) items.push_back({"link", workspace_ + "/" + rel, to, ""});
  }

  // A pointer the agent wrote (commondir, a .git file) that leads anywhere but the workspace's
  // own git dir: host git would read config and hooks from where it points.
  void pointer(const std::string& rel, const std::string& base, bool gitdir_prefix, const std::string& main_dir) {
    WorkspaceTree tree(workspace_);
    if (is_protected(rel) || tree.kind(rel) != EntryKind::File) return;
    std::string target = pointer_target(workspace_, base, tree.read(rel), gitdir_prefix);
    if (!target.empty() && (gitdir_prefix || target == main_dir)) return;  // inside: audited as a git dir
    if (std::string to = move(rel, false); !to.empty()) items.push_back({"pointer", workspace_ + "/" + rel, to, ""});
  }

  std::vector<AuditItem> items;
  std::vector<std::string> problems;

 private:
  // mkdir -p below the workspace, never through a link; owned by the workspace's owner.
  UniqueFd make_dirs(const std::string& rel) {
    UniqueFd at(::fcntl(root_.get(), F_DUPFD_CLOEXEC, 0));
    size_t start = 0;
    while (at.valid() && start < rel.size()) {
      size_t end = rel.find('/', start);
      if (end == std::string::npos) end = rel.size();
      const std::string part = rel.substr(start, end - start);
      start = end + 1;
      if (::mkdirat(at.get(), part.c_str(), 0700) == 0 && ::geteuid() == 0)
        ::fchownat(at.get(), part.c_str(), owner_.st_uid, owner_.st_gid, AT_SYMLINK_NOFOLLOW);
      at.reset(::openat(at.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    }
    return at;
  }

  std::string workspace_, session_, quarantine_;
  const std::vector<std::string>& protected_;
  UniqueFd root_;
  struct stat owner_ {};
};

}  // namespace

FootholdAudit audit_footholds(const std::string& workspace, const std::string& session_id,
                              const std::vector<std::string>& protected_paths,
                              const std::vector<std::string>& protect_absent) {
  FootholdAudit report;
  if (workspace.empty() || workspace[0] != '/') return report;
  Auditor a(workspace, session_id, protected_paths);
  if (!a.open()) return report;  // the workspace is gone: nothing of it can run
  std::vector<std::string> links;
  const std::vector<GitDir> dirs = workspace_git_dirs(workspace, WorkspaceTree(workspace), &links);
  const std::string main_dir = dirs.empty() || !dirs.front().main ? "" : dirs.front().rel;
  a.pointer(".git", "", true, main_dir);
  for (const GitDir& dir : dirs) {
    a.audit_hooks(dir.rel);
    a.audit_config(dir.rel, "config");
    a.audit_config(dir.rel, "config.worktree");
    a.pointer(join_rel(dir.rel, "commondir"), dir.rel, false, main_dir);
  }
  for (const auto& rel : links) a.link(rel);
  for (const auto& path : protect_absent) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) a.items.push_back({"protect", path, "", ""});
  }
  report.items = std::move(a.items);
  report.problems = std::move(a.problems);
  return report;
}

std::string audit_line(const std::string& workspace, const AuditItem& item) {
  std::string rel = item.path.rfind(workspace + "/", 0) == 0 ? item.path.substr(workspace.size() + 1) : item.path;
  if (item.kind == "protect")
    return rel + " appeared during the session and was not protected (a host tool may run what it holds): review it";
  if (item.kind == "config")
    return "rewrote " + rel + " written during the session to its allowed keys (" + item.detail +
           " would run code or load more on the host): the original is " + item.quarantine;
  return "quarantined " + rel + " written during the session (it would run on the host): see " + item.quarantine;
}

}  // namespace cordon
