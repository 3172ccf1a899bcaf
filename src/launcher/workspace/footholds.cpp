#include "launcher/workspace/footholds.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/error.h"
#include "common/paths.h"
#include "common/text.h"
#include "common/unique_fd.h"

namespace cordon {
namespace {

[[noreturn]] void refuse_link(const std::string& workspace, const std::string& rel) {
  throw Error("workspace path " + workspace + "/" + rel +
                  " is (or lies under) a symbolic link: cordon binds it read-only so the agent cannot plant "
                  "code there that host tools run, and will not follow a link to somewhere else",
              "replace the link with the directory or file itself (or, for a [workspace] protect entry, remove "
              "it from that list)");
}

class GitDirWalk {
 public:
  GitDirWalk(const std::string& workspace, const TreeView& tree, std::vector<std::string>* links)
      : workspace_(workspace), tree_(tree), links_(links) {}

  void add(const std::string& rel, bool main, int depth) {
    if (std::any_of(dirs_.begin(), dirs_.end(), [&](const GitDir& d) { return d.rel == rel; })) return;
    if (!usable(rel)) return;
    dirs_.push_back({rel, main});
    // A linked worktree's gitdir keeps its config and hooks in the common directory.
    if (tree_.kind(join_rel(rel, "commondir")) == EntryKind::File) {
      std::string common = pointer_target(workspace_, rel, tree_.read(join_rel(rel, "commondir")), false);
      if (!common.empty()) add(common, false, depth);
    }
    for (const auto& name : tree_.list(join_rel(rel, "worktrees")))
      add(join_rel(rel, "worktrees/" + name), false, depth);
    modules(join_rel(rel, "modules"), depth + 1);
  }

  std::vector<GitDir> take() { return std::move(dirs_); }

 private:
  // Below modules/ a directory with a HEAD is a submodule's git dir; any other directory is a
  // part of a submodule name with slashes ("libs/a" -> modules/libs/a).
  // A directory to enter; a symlink refuses the launch, or is listed for the audit.
  bool usable(const std::string& rel) {
    EntryKind kind = tree_.kind(rel);
    if (kind == EntryKind::Symlink && !links_) refuse_link(workspace_, rel);
    if (kind == EntryKind::Symlink) links_->push_back(rel);
    return kind == EntryKind::Directory;
  }

  void modules(const std::string& dir, int depth) {
    if (!usable(dir)) return;
    if (depth > kMaxModuleDepth && links_) return;  // the audit reaches as deep as the launch protects
    if (depth > kMaxModuleDepth)
      throw Error("submodules nest deeper than " + std::to_string(kMaxModuleDepth) + " levels under " + workspace_ +
                      "/" + dir + ": cordon would leave the deeper ones' hooks and config writable",
                  "flatten the submodule layout, or use a workspace without it");
    for (const auto& name : tree_.list(dir)) {
      const std::string child = join_rel(dir, name);
      if (!usable(child)) continue;
      if (tree_.kind(join_rel(child, "HEAD")) != EntryKind::Missing) add(child, false, depth);
      else modules(child, depth + 1);
    }
  }

  const std::string& workspace_;
  const TreeView& tree_;
  std::vector<std::string>* links_;
  std::vector<GitDir> dirs_;
};

// Adds `rel` as a read-only bind when it exists; a symlink refuses the launch.
bool protect(const std::string& workspace, const std::string& rel, const TreeView& tree, FootholdPlan& plan) {
  EntryKind kind = tree.kind(rel);
  if (kind == EntryKind::Symlink) refuse_link(workspace, rel);
  if (kind == EntryKind::Missing) return false;
  const std::string path = workspace + "/" + rel;
  plan.binds.push_back({path, false});
  plan.protected_paths.push_back(path);
  return true;
}

void protect_git_dir(const std::string& workspace, const GitDir& dir, const TreeView& tree, FootholdPlan& plan) {
  plan.binds.push_back({workspace + "/" + dir.rel, true});
  // config: core.fsmonitor, aliases, filters, hooksPath; config.worktree (extensions.worktreeConfig);
  // commondir redirects where config and hooks are read from.
  for (const char* name : {"config", "config.worktree", "commondir"})
    protect(workspace, join_rel(dir.rel, name), tree, plan);
  const std::string hooks = join_rel(dir.rel, "hooks");
  if (protect(workspace, hooks, tree, plan)) return;
  // No hooks/ yet: made empty at launch, so a hook the agent writes has nowhere to land.
  plan.create_hooks.push_back(workspace + "/" + hooks);
  plan.binds.push_back({workspace + "/" + hooks, false});
  plan.protected_paths.push_back(workspace + "/" + hooks);
}

// "./.vscode/" -> ".vscode".
std::string clean_entry(const std::string& entry) {
  std::string out = normalize_path("/" + entry);
  return out == "/" ? "" : out.substr(1);
}

}  // namespace

std::string join_rel(const std::string& dir, const std::string& name) { return dir.empty() ? name : dir + "/" + name; }

std::string pointer_target(const std::string& workspace, const std::string& base_rel, const std::string& text,
                           bool gitdir_prefix) {
  std::string target = trim(text.substr(0, text.find('\n')));
  if (gitdir_prefix) {
    if (target.rfind("gitdir:", 0) != 0) return "";
    target = trim(target.substr(7));
  }
  if (target.empty()) return "";
  const std::string base = base_rel.empty() ? workspace : workspace + "/" + base_rel;
  const std::string resolved = normalize_path(target[0] == '/' ? target : base + "/" + target);
  if (resolved == workspace || !path_within(resolved, workspace)) return "";
  return resolved.substr(workspace.size() + 1);
}

std::vector<GitDir> workspace_git_dirs(const std::string& workspace, const TreeView& tree,
                                       std::vector<std::string>* links) {
  GitDirWalk walk(workspace, tree, links);
  switch (tree.kind(".git")) {
    case EntryKind::Symlink:
      if (!links) refuse_link(workspace, ".git");
      links->push_back(".git");
      break;
    case EntryKind::Directory: walk.add(".git", true, 0); break;
    case EntryKind::File: {
      // A linked worktree or a submodule checkout: the gitdir it names, when inside the
      // workspace. Outside, the sandbox sees it read-only (see the header).
      std::string gitdir = pointer_target(workspace, "", tree.read(".git"), true);
      if (!gitdir.empty()) walk.add(gitdir, true, 0);
      break;
    }
    default: break;
  }
  return walk.take();
}

FootholdPlan plan_footholds(const std::string& workspace, const std::vector<std::string>& protect_list,
                            const TreeView& tree) {
  FootholdPlan plan;
  try {
    // The .git file itself, so the agent cannot point it at a gitdir of its own.
    if (tree.kind(".git") == EntryKind::File) protect(workspace, ".git", tree, plan);
    for (const GitDir& dir : workspace_git_dirs(workspace, tree)) protect_git_dir(workspace, dir, tree, plan);
    for (const auto& entry : protect_list) {
      const std::string rel = clean_entry(entry);
      if (rel.empty()) continue;
      if (!protect(workspace, rel, tree, plan)) plan.absent.push_back(workspace + "/" + rel);
    }
  } catch (const Error& e) {
    plan = FootholdPlan{};
    plan.refusal = e.what();
    plan.refusal_fix = e.fix();
  }
  return plan;
}

FootholdPlan gather_footholds(const std::string& workspace, const std::vector<std::string>& protect_list) {
  if (workspace.empty() || workspace == "/") return {};
  return plan_footholds(workspace, protect_list, WorkspaceTree(workspace));
}

std::vector<std::string> foothold_mount_args(const FootholdPlan& plan) {
  if (!plan.refusal.empty()) throw Error(plan.refusal, plan.refusal_fix);
  std::vector<std::string> args;
  for (const auto& bind : plan.binds)
    args.insert(args.end(), {bind.pin ? "--bind" : "--ro-bind", bind.path, bind.path});
  return args;
}

void create_missing_hooks(const std::string& workspace, const FootholdPlan& plan) {
  if (plan.create_hooks.empty()) return;
  UniqueFd root(::open(workspace.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  struct stat owner {};
  if (!root.valid() || ::fstat(root.get(), &owner) != 0)
    throw Error(errno_text("opening the workspace " + workspace, errno), "check that it exists");
  for (const auto& hooks : plan.create_hooks) {
    const std::string rel = hooks.substr(workspace.size() + 1);
    const std::string parent = rel.substr(0, rel.rfind('/'));
    UniqueFd dir(open_beneath(root.get(), parent, O_RDONLY | O_DIRECTORY));
    if (!dir.valid() || (::mkdirat(dir.get(), "hooks", 0755) != 0 && errno != EEXIST))
      throw Error(errno_text("making " + hooks + " (to bind it read-only)", errno),
                  "create it yourself (mkdir " + hooks + "), or check the workspace's permissions");
    UniqueFd made(::openat(dir.get(), "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!made.valid() || ::fchmod(made.get(), 0755) != 0 ||
        (::geteuid() == 0 && ::fchown(made.get(), owner.st_uid, owner.st_gid) != 0))
      throw Error(errno_text("preparing " + hooks, errno), "replace it with an empty directory (mkdir " + hooks + ")");
  }
}

}  // namespace cordon
