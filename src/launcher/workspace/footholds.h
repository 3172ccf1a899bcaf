// Workspace footholds: the files in the workspace through which the operator's own tools run
// code on the host later (git's config and hooks; .envrc, editor and devcontainer settings).
// At launch they are bound read-only, so a steered agent cannot plant a core.fsmonitor, a hook,
// an alias or a filter that the operator's next `git status` runs outside the sandbox.
// Planning is pure over a TreeView (tests hand it a fake tree); gathering walks the real
// workspace with O_NOFOLLOW, never following a symlink out of it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "launcher/inputs/workspace_tree.h"

namespace cordon {

// Submodules nest as .git/modules/A/modules/B/...; deeper than this the launch is refused
// rather than leaving a level unprotected.
inline constexpr int kMaxModuleDepth = 8;

// One git directory of the workspace (relative path) and whether the workspace's .git names it.
struct GitDir {
  std::string rel;
  bool main = false;
};

// Every git directory of the workspace: .git itself, or the gitdir a `.git` file names (and
// its commondir) when inside the workspace; each one's worktrees/* and modules/** (bounded).
// A gitdir outside the workspace is not listed: the sandbox sees it read-only (the host root
// is bound read-only), unless it lies in a [filesystem] writable path, which is the
// operator's choice. Throws cordon::Error for a symlink among them or too deep a nesting;
// with `links` (the teardown audit) a symlink is listed there instead and not entered.
std::vector<GitDir> workspace_git_dirs(const std::string& workspace, const TreeView& tree,
                                       std::vector<std::string>* links = nullptr);

// `dir` + "/" + `name`, or `name` when `dir` is "".
std::string join_rel(const std::string& dir, const std::string& name);

// "gitdir: PATH" in a `.git` file, or commondir's PATH, resolved against `base_rel` and made
// relative to the workspace; "" when it lies outside (or the text is not of that shape).
std::string pointer_target(const std::string& workspace, const std::string& base_rel, const std::string& text,
                           bool gitdir_prefix);

struct FootholdBind {
  std::string path;  // absolute
  bool pin = false;  // bound onto itself read-write: a mount point cannot be renamed or removed
};

struct FootholdPlan {
  std::vector<FootholdBind> binds;           // in bwrap order: a git dir's pin before its files
  std::vector<std::string> protected_paths;  // absolute paths bound read-only (the session intent lists them)
  std::vector<std::string> create_hooks;     // hooks/ directories made at launch, then bound read-only
  std::vector<std::string> absent;           // [workspace] protect entries absent at launch (absolute)
  std::string refusal, refusal_fix;          // set: the launch is refused (a symlink, too deep)
};

// The pure plan for `workspace` (absolute) and the configured protect list.
FootholdPlan plan_footholds(const std::string& workspace, const std::vector<std::string>& protect,
                            const TreeView& tree);

// Host side: the plan over the real workspace ("" workspace: an empty plan).
FootholdPlan gather_footholds(const std::string& workspace, const std::vector<std::string>& protect);

// bwrap arguments for the plan; throws cordon::Error (what + fix) when the plan refuses.
std::vector<std::string> foothold_mount_args(const FootholdPlan& plan);

// Host side, at launch only (not for `cordon argv`): makes each missing hooks/ directory, mode
// 0755, owned by the workspace's owner, walking from the workspace without following links.
void create_missing_hooks(const std::string& workspace, const FootholdPlan& plan);

}  // namespace cordon
