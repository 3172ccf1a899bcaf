#include "launcher/record/sweep_reach.h"

#include <linux/magic.h>
#include <sys/vfs.h>

#include "common/agent_control.h"
#include "common/landlock_abi.h"
#include "common/paths.h"
#include "launcher/fs/control_file_place.h"
#include "launcher/inputs/state_dirs.h"
#include "launcher/network/pasta.h"

namespace cordon {
namespace {

using namespace landlock;

// Everything a tree of cordon's own or the session's may need written, moved or removed;
// no links, devices, FIFOs or sockets made, nothing executed.
constexpr uint64_t kAnyWrite = kAccessFsWriteFile | kAccessFsTruncate | kAccessFsMakeReg | kAccessFsMakeDir |
                               kAccessFsRemoveFile | kAccessFsRemoveDir | kAccessFsRefer;
// A control file put back: a new regular file renamed over it in the same directory (no
// refer), or the node planted there removed (a directory: its contents too).
constexpr uint64_t kControlFileWrite = kAccessFsWriteFile | kAccessFsTruncate | kAccessFsMakeReg | kAccessFsRemoveFile |
                                       kAccessFsRemoveDir;

}  // namespace

SweepReach sweep_reach(const std::string& sessions_dir, const std::string& id, const std::string& home,
                       const SandboxPlan& plan, const RecordExportTarget& export_to) {
  SweepReach reach;
  auto grant = [&](const std::string& path, uint64_t access) {
    if (!path.empty()) reach.grants.push_back({path, access});
  };
  grant(state_dir_of(sessions_dir), kAnyWrite);
  grant(plan.intent.workspace, kAnyWrite);
  for (const cgroup::Budget& budget : plan.limits.cgroup_budgets) {
    grant(budget.parent_dir, kAnyWrite);
    if (budget.version == cgroup::Version::V1) reach.signal_scope = false;
  }
  const std::string pasta_dir = jail::pasta_temp_dir(id);
  grant(pasta_dir, kAccessFsRemoveFile);
  grant(parent_dir(pasta_dir), kAccessFsRemoveDir);
  for (const ControlKeys& keys : shipped_control_keys(plan.agent)) {
    const std::string path = home + "/" + keys.file;
    grant(parent_dir(path), kControlFileWrite);
    // A dotfile manager's link: the file it leads to is the one put back.
    const ControlFilePlace place = control_file_place(path);
    if (place.kind == ControlFilePlace::Kind::Link && !place.resolved.empty())
      grant(parent_dir(place.resolved), kControlFileWrite);
  }
  // A file rule (Landlock's rules on a file hold only its file rights): appended to, not made.
  // A pipe or socket reached through /proc (/proc/1/fd/1 in a pod) needs none: Landlock does
  // not restrict those, and refuses a rule on them.
  struct statfs fs {};
  if (export_to.kind == RecordExportTarget::Kind::File &&
      !(::statfs(export_to.path.c_str(), &fs) == 0 && (fs.f_type == PIPEFS_MAGIC || fs.f_type == SOCKFS_MAGIC)))
    grant(export_to.path, kAccessFsWriteFile);
  return reach;
}

}  // namespace cordon
