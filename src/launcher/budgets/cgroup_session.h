// The session's own cgroups: one child of the launcher's cgroup per hierarchy that carries a
// budget, created with its limits written and read back before anything forks; the launcher's
// forked child is born in the v2 one (clone3 CLONE_INTO_CGROUP) and joins the v1 ones (their
// `tasks`) before it execs bwrap, so every process of the sandbox is inside.
// After the sandbox exits, whatever is left in them is killed, they are removed, and the
// budgets the session ran into are reported.
//
// cgroup v2 forbids enabling controllers for the children of a cgroup that holds processes.
// When the launcher's own v2 cgroup has not enabled them yet, the launcher first moves itself
// into a leaf ("cordon-launcher-ID") and enables them, holding a lock on the cgroup directory
// so that no other launcher interleaves. On finish it undoes both only when no other child
// cgroup remains (another session's budget must never vanish with ours); otherwise it stays
// in its leaf until it exits and a later launch removes the empty leaf. In the true root
// cgroup (exempt from the rule) controllers are enabled in place and never disabled.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/unique_fd.h"
#include "launcher/budgets/cgroup_plan.h"
#include "launcher/process/launch_stage.h"

namespace cordon::cgroup {

struct CgroupFinish {
  std::vector<std::string> limit_hits;  // limit keys whose budget stopped something (OOM kill, fork refused)
  std::vector<std::string> problems;    // teardown problems (empty = verified clean)
  std::vector<std::string> removed;     // session cgroups emptied and removed
};

// Why a launch from this process's cgroup could not give a session cgroup `budget`'s v2
// controller (other processes share the cgroup, so it cannot be enabled for children), or ""
// when nothing stands in the way. For `cordon doctor`; the launch itself finds out by trying.
std::string v2_sharing_problem(const Budget& budget);

// After a launcher died without its teardown (SIGKILL): kills what is left in the session's
// cgroups "<parent>/cordon-<session_id>", removes them and the launcher's v2 leaf
// "<parent>/cordon-launcher-<session_id>". For the crash sweep (record/sweep).
CgroupFinish sweep_session_cgroups(const std::vector<std::string>& parent_dirs, const std::string& session_id);

class SessionCgroup : public LaunchStage {
 public:
  // Creates "<parent>/cordon-<session_id>" for every hierarchy that carries a budget, writes
  // the settings and reads them back. Throws cordon::Error (with everything it made removed
  // again) when any step fails.
  // `companion` (-1: none), the launcher's session keeper (record/session_keeper.h), moves
  // with the launcher into and out of its v2 leaf: left in the parent, it would keep the
  // controllers from being enabled there.
  SessionCgroup(const std::vector<Budget>& budgets, const std::string& session_id, pid_t companion = -1);
  ~SessionCgroup() override;  // best effort when finish() was not called: kill, remove, undo
  SessionCgroup(const SessionCgroup&) = delete;
  SessionCgroup& operator=(const SessionCgroup&) = delete;

  // In the forked child, before any other stage: joins every session cgroup (the v2 one only
  // when the child was not cloned into it).
  void in_child(const ChildSide& side) override;
  int clone_into_cgroup_fd() const override { return v2_dir_fd_.get(); }
  void after_fork(pid_t) override {}
  void after_exit() override {}

  // After the sandbox has exited: kills anything left (named as a problem), removes the
  // cgroups, restores the launcher's own placement, reports the budgets the session hit.
  CgroupFinish finish();

 private:
  struct SessionDir {
    std::string dir;
    std::vector<Budget> budgets;  // every budget of this hierarchy
  };
  struct LauncherMove {
    std::string parent_dir;            // the launcher's own v2 cgroup
    std::string leaf_dir;              // where the launcher moved itself
    std::vector<std::string> enabled;  // controllers it enabled in the parent's subtree_control
  };
  void create(const std::vector<Budget>& budgets, const std::string& session_id);
  void enable_v2_controllers(const SessionDir& session, const std::string& session_id);
  CgroupFinish clean_up();

  std::vector<SessionDir> dirs_;
  std::vector<LauncherMove> moves_;
  pid_t companion_ = -1;
  // The child only opens and writes these.
  std::vector<std::string> v1_tasks_files_;
  std::string v2_procs_file_;
  UniqueFd v2_dir_fd_;  // the v2 session cgroup, for clone3(CLONE_INTO_CGROUP); -1 without one
  bool finished_ = false;
};

}  // namespace cordon::cgroup
