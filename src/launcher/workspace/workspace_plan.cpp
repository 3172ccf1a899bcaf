#include "launcher/workspace/workspace_plan.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"
#include "common/paths.h"
#include "common/text.h"

namespace cordon {

TreeSnapshot snapshot_workspace_tree(const std::string& workspace, const std::vector<std::string>& protect) {
  TreeSnapshot snapshot;
  if (workspace.empty() || workspace == "/") return snapshot;
  WorkspaceTree tree(workspace);
  // The foothold plan asks exactly what it needs; its answers are the facts.
  plan_footholds(workspace, protect, RecordingTree(tree, snapshot));
  return snapshot;
}

// The messages echo the path terminal-safe: one line, whatever it holds.
void refuse_unusable_workspace(const HostFacts& f) {
  if (f.workspace.empty())
    throw Error("workspace " + terminal_safe(f.workspace_asked) + " does not exist",
                "create it, or pass --workspace DIR with an existing directory");
  if (!f.is_dir(f.workspace))
    throw Error("workspace " + terminal_safe(f.workspace) + " is not a directory", "pass --workspace DIR");
}

void refuse_dangerous_workspace(const HostFacts& f, const std::vector<ProtectedPath>& protected_list) {
  if (std::string why = why_not_writable_anywhere(f.workspace, f, protected_list); !why.empty())
    throw Error("workspace " + terminal_safe(f.workspace) + " " + why + ": the sandbox could write there",
                "run cordon in a project directory, or pass --workspace DIR (for example ~/src/app): not a "
                "system or shared directory, $HOME or one of its parents, or cordon's own directories; for a "
                "session without a project, cordon run --scratch makes a fresh empty one");
  refuse_newlines("workspace", f.workspace);
}

void refuse_unwritable_workspace(const HostFacts& f) {
  const SandboxAccess& a = f.workspace_access;
  if (a.error == 0) return;
  const std::string path = terminal_safe(f.workspace);
  if (a.error == EROFS)
    throw Error("workspace " + path + " is on a read-only mount: the session could not write it",
                "mount it read-write, or pass --workspace DIR on a writable filesystem");
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(a.mode));
  const std::string owner = a.owner_name.empty()
                                ? "uid " + std::to_string(a.owner)
                                : terminal_safe(a.owner_name) + " (uid " + std::to_string(a.owner) + ")";
  const std::string what = "workspace " + path + " belongs to " + owner + ", mode " + mode +
                           ": the session runs as uid " + std::to_string(f.uid) +
                           " without capabilities and could not write it (" + std::strerror(a.error) + ")";
  if (f.uid == 0 && a.owner != 0)
    throw Error(what, "launch cordon as its owner (sudo -u " +
                          (a.owner_name.empty() ? "#" + std::to_string(a.owner) : terminal_safe(a.owner_name)) +
                          " cordon run ...), or chown the tree to root; in a devcontainer, make remoteUser the "
                          "project's owner (devcontainer/README.md)");
  throw Error(what, "make it writable for " + terminal_safe(f.user) + " (chown " + terminal_safe(f.user) + " " + path +
                        ", or chmod u+w if you own it), or launch cordon as the user who owns it");
}

WorkspaceSection plan_workspace(const WorkspaceConfig& config, const HostFacts& facts) {
  WorkspaceSection s;
  s.path = facts.workspace;
  if (facts.workspace_tree.taken)
    s.footholds = plan_footholds(facts.workspace, config.protect, SnapshotTree(facts.workspace_tree));
  s.chdir = path_within(facts.cwd, facts.workspace) ? facts.cwd : facts.workspace;
  s.review = config.mode == WorkspaceMode::Review;
  return s;
}

std::vector<MountStep> workspace_mounts(const WorkspaceSection& section) {
  if (!section.footholds.refusal.empty()) throw Error(section.footholds.refusal, section.footholds.refusal_fix);
  std::vector<MountStep> mounts = {{MountOp::BindFd, section.path, section.path, MountRole::Workspace}};
  for (const auto& bind : section.footholds.binds)
    mounts.push_back({bind.pin ? MountOp::Bind : MountOp::RoBind, bind.path, bind.path,
                      bind.pin ? MountRole::FootholdPin : MountRole::Foothold});
  return mounts;
}

void prepare_workspace(const WorkspaceSection& section) { create_missing_hooks(section.path, section.footholds); }

}  // namespace cordon
