// The workspace's section of the plan, from its path to its bind: the workspace is resolved
// when host facts are gathered (inputs/host_facts.h), refused here when it is (or holds, or lies
// in) a path no sandbox may write, bound read-write by descriptor at the same path (fs/ places
// the bind at its step in the mount order), and its footholds (workspace/footholds.h) bound
// read-only over it. What the session may leave there is audited after it
// (workspace/foothold_audit.h). A review-mode workspace plugs in here.
#pragma once

#include <string>
#include <vector>

#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/inputs/workspace_tree.h"
#include "launcher/section/dangerous_paths.h"
#include "launcher/section/section.h"
#include "launcher/workspace/footholds.h"

namespace cordon {

struct WorkspaceSection {
  std::string path;        // the host workspace (resolved), bound read-write at the same path
  FootholdPlan footholds;  // bound read-only over it, in bwrap's order
  std::string chdir;       // where the command starts: the launcher's cwd when inside, else the workspace
  // Review mode ([workspace] mode = "review"): the bind is an overlay over the host workspace
  // (launcher/review/review_overlay.h) whose upper layer lives in `review_dir` (STATE/reviews/ID,
  // named at launch: run/session.cpp).
  bool review = false;
  std::string review_dir;
  // The review's base (review/review_base.h: the watermark, git HEAD, the index's checksum and
  // the scanner's digests of the host's credential values kept out of the sandbox), taken
  // before the manifest is written, as its "cordon-review-base" document.
  std::string review_base;
};

// Host side, while gathering facts: reads the workspace's git dirs and [workspace] protect
// entries once (an O_NOFOLLOW walk), for plan_workspace. An empty snapshot for no workspace or "/".
TreeSnapshot snapshot_workspace_tree(const std::string& workspace, const std::vector<std::string>& protect);

// Throws cordon::Error (what + fix) for a workspace that is missing, not a directory, or a path
// the sandbox may not write (`protected_list`: section/dangerous_paths.h).
void refuse_unusable_workspace(const HostFacts& facts);
void refuse_dangerous_workspace(const HostFacts& facts, const std::vector<ProtectedPath>& protected_list);
// ... and one the session could not write: it runs as the launcher's uid with no capability, so
// root in a directory another user owns, or anyone on a read-only mount, would get a workspace
// that only looks writable (facts.workspace_access).
void refuse_unwritable_workspace(const HostFacts& facts);

// Pure: the section from the [workspace] config and the facts (facts.workspace_tree).
WorkspaceSection plan_workspace(const WorkspaceConfig& config, const HostFacts& facts);

// What fs/ mounts at the workspace's step: the workspace read-write by descriptor, then its
// footholds read-only. Throws cordon::Error when the footholds refuse the launch.
std::vector<MountStep> workspace_mounts(const WorkspaceSection& section);

// At launch, before the sandbox starts (not for `cordon argv`): the hooks/ directories the
// footholds bind read-only but that do not exist yet are made (workspace/footholds.h).
void prepare_workspace(const WorkspaceSection& section);

}  // namespace cordon
