#include "launcher/budgets/cgroup_session.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "common/error.h"
#include "common/text.h"
#include "common/unique_fd.h"

namespace cordon::cgroup {
namespace {

// Writes `value` in one write(2); returns 0 or the errno.
// The number after `key` in a flat keyed file ("max 3\n" in pids.events); 0 when absent.
long long keyed_value(const std::string& path, const std::string& key) {
  std::istringstream in(read_text_file(path));
  std::string k;
  long long v;
  while (in >> k >> v)
    if (k == key) return v;
  return 0;
}

std::vector<pid_t> members(const std::string& dir) {
  std::vector<pid_t> out;
  std::istringstream in(read_text_file(dir + "/cgroup.procs"));
  pid_t pid;
  while (in >> pid) out.push_back(pid);
  return out;
}

// The value the kernel reports back for a setting: memory limits are kept in whole pages.
std::string expected_readback(const Setting& s) {
  if (s.file.rfind("memory.", 0) != 0 || s.value == "max") return s.value;
  long long page = ::sysconf(_SC_PAGESIZE);
  return std::to_string(std::stoll(s.value) / page * page);
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// Kills every process still in `dir` and waits (bounded, 2 s) for the cgroup to empty.
// Returns how many were found. The launcher is the session's subreaper, so it reaps them.
// v2's cgroup.kill (Linux 5.14) kills by cgroup, immune to pid reuse; v1 kills by pid.
size_t kill_members(const std::string& dir) {
  size_t found = 0;
  const bool by_cgroup = ::access((dir + "/cgroup.kill").c_str(), F_OK) == 0;
  for (int attempt = 0; attempt < 2000; ++attempt) {
    std::vector<pid_t> left = members(dir);
    if (left.empty()) break;
    if (attempt == 0) found = left.size();
    if (!by_cgroup || write_control_file(dir + "/cgroup.kill", "1") != 0)
      for (pid_t pid : left) ::kill(pid, SIGKILL);
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    ::usleep(1000);
  }
  return found;
}

// Waits (bounded) for `dir` to empty on its own. A crashed launcher's sandbox dies after it,
// by the parent-death signal bwrap set, a few milliseconds later: those processes are exiting,
// not left behind, and a sweep run right after the crash must not report them.
void let_dying_members_leave(const std::string& dir, int max_ms) {
  for (int waited = 0; waited < max_ms && !members(dir).empty(); ++waited) ::usleep(1000);
}

// rmdir, retried briefly: a cgroup whose last process just exited can still be busy.
int remove_dir(const std::string& dir) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) return 0;
    if (errno != EBUSY) return errno;
    ::usleep(1000);
  }
  return EBUSY;
}

// The budgets that stopped something, by the kernel's counters: a refused fork, or the OOM
// killer. Reaching the memory limit and reclaiming page cache (v2 "max", v1 failcnt) is normal
// work for a cgroup and not a hit.
void collect_hits(const std::string& dir, const std::vector<Budget>& budgets, std::vector<std::string>& hits) {
  for (const auto& b : budgets) {
    bool hit = false;
    if (b.controller == "pids") {
      hit = keyed_value(dir + "/pids.events", "max") > 0;
    } else if (b.version == Version::V2) {
      hit = keyed_value(dir + "/memory.events", "oom") > 0 || keyed_value(dir + "/memory.events", "oom_kill") > 0;
    } else {
      hit = keyed_value(dir + "/memory.oom_control", "oom_kill") > 0 ||
            keyed_value(dir + "/memory.oom_control", "under_oom") > 0;
    }
    if (hit) hits.push_back(b.limit_key);
  }
}

// An exclusive flock on a cgroup directory for as long as it lives: launchers sharing a parent
// take turns at enabling and undoing its controllers. Waits at most 5 s (a holder could be
// stopped, and the launcher holds termination signals blocked).
class DirectoryLock {
 public:
  explicit DirectoryLock(const std::string& dir) : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    for (int attempt = 0; fd_.get() >= 0 && attempt < 500; ++attempt) {
      if (::flock(fd_.get(), LOCK_EX | LOCK_NB) == 0) {
        held_ = true;
        return;
      }
      if (errno != EWOULDBLOCK && errno != EINTR) return;
      ::usleep(10000);
    }
  }
  bool held() const { return held_; }

 private:
  UniqueFd fd_;
  bool held_ = false;
};

// The child cgroups of `dir` (directory names).
std::vector<std::string> child_cgroups(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_type == DT_DIR && std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
        out.emplace_back(e->d_name);  // systemd's ".control" counts: it is a child cgroup too
    ::closedir(d);
  }
  return out;
}

// The true root of a v2 hierarchy has no cgroup.type (and is exempt from the rule that a
// cgroup handing controllers to children holds no processes).
bool is_v2_root(const std::string& dir) { return ::access((dir + "/cgroup.type").c_str(), F_OK) != 0; }

}  // namespace

std::string v2_sharing_problem(const Budget& budget) {
  const std::string& parent = budget.parent_dir;
  if (budget.version != Version::V2 || is_v2_root(parent)) return {};
  if (read_controller_list(parent + "/cgroup.subtree_control").count(budget.controller)) return {};
  std::vector<pid_t> all = members(parent);
  size_t others = static_cast<size_t>(std::count_if(all.begin(), all.end(), [](pid_t p) { return p != ::getpid(); }));
  if (others == 0) return {};
  return std::to_string(others) + " other processes share the launcher's cgroup " + parent +
         ", so cgroup v2 cannot enable " + budget.controller + " for a session cgroup";
}

SessionCgroup::SessionCgroup(const std::vector<Budget>& budgets, const std::string& session_id, pid_t companion)
    : companion_(companion) {
  try {
    create(budgets, session_id);
  } catch (const Error& e) {
    finished_ = true;
    CgroupFinish undone = clean_up();
    if (undone.problems.empty()) throw;
    std::string also;
    for (const auto& p : undone.problems) also += "; " + p;
    throw Error(e.what() + std::string(", and undoing it failed") + also, e.fix(), e.exit_code());
  } catch (...) {
    finished_ = true;
    clean_up();
    throw;
  }
}

SessionCgroup::~SessionCgroup() {
  if (!finished_) clean_up();
}

void SessionCgroup::create(const std::vector<Budget>& budgets, const std::string& session_id) {
  // One session cgroup per hierarchy: v2 carries memory and pids in one directory.
  for (const auto& b : budgets) {
    std::string dir = b.parent_dir + "/cordon-" + session_id;
    auto same = std::find_if(dirs_.begin(), dirs_.end(), [&](const SessionDir& d) { return d.dir == dir; });
    if (same != dirs_.end()) same->budgets.push_back(b);
    else dirs_.push_back({dir, {b}});
  }
  const std::string fix_perm = "check the cgroup's ownership, or add the limit to limits.best_effort";
  for (size_t i = 0; i < dirs_.size(); ++i) {
    SessionDir& session = dirs_[i];
    if (session.budgets.front().version == Version::V2) enable_v2_controllers(session, session_id);
    if (::mkdir(session.dir.c_str(), 0755) != 0) {
      int err = errno;
      dirs_.resize(i);  // not made: nothing to remove
      throw Error(errno_text("creating the session cgroup " + session.dir, err), fix_perm);
    }
    for (const auto& b : session.budgets)
      for (const auto& s : b.settings) {
        std::string path = session.dir + "/" + s.file;
        if (s.optional && ::access(path.c_str(), F_OK) != 0) continue;
        if (int err = write_control_file(path, s.value))
          throw Error(errno_text("writing " + s.value + " to " + path + " (limits." + b.limit_key + ")", err),
                      fix_perm);
        std::string back = trim(read_text_file(path));
        if (back != expected_readback(s))
          throw Error(
              "limits." + b.limit_key + ": wrote " + s.value + " to " + path + " but it reads back \"" + back + "\"",
              "the kernel did not accept the budget; nothing ran");
      }
    if (session.budgets.front().version == Version::V2) {
      v2_procs_file_ = session.dir + "/cgroup.procs";
      // For clone3(CLONE_INTO_CGROUP): the child is born inside, no cgroup.procs write.
      v2_dir_fd_.reset(::open(session.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    } else {
      v1_tasks_files_.push_back(session.dir + "/tasks");
    }
  }
}

void SessionCgroup::enable_v2_controllers(const SessionDir& session, const std::string& session_id) {
  const std::string parent = session.budgets.front().parent_dir;
  DirectoryLock lock(parent);
  if (!lock.held())
    throw Error("could not lock " + parent + " within 5 s (another cordon launch holds it)",
                "retry; if it persists, look for a stopped cordon process");
  // Leaves of launchers that have exited (left in place because another session was running):
  // rmdir removes only empty ones, so a live launcher's leaf stays.
  for (const auto& name : child_cgroups(parent))
    if (name.rfind("cordon-launcher-", 0) == 0) ::rmdir((parent + "/" + name).c_str());
  const std::set<std::string> enabled = read_controller_list(parent + "/cgroup.subtree_control");
  std::vector<std::string> missing;
  for (const auto& b : session.budgets)
    if (!enabled.count(b.controller) && !contains(missing, b.controller)) missing.push_back(b.controller);
  if (missing.empty()) return;
  if (is_v2_root(parent)) {
    // Enabled for good: others may rely on them as soon as they are on.
    for (const auto& controller : missing)
      if (int err = write_control_file(parent + "/cgroup.subtree_control", "+" + controller))
        throw Error(
            errno_text("enabling the " + controller + " controller in " + parent + "/cgroup.subtree_control", err),
            "enable it by hand, or add the limit to limits.best_effort");
    return;
  }
  // A cgroup with processes of its own cannot hand controllers to children: move out first.
  LauncherMove move{parent, parent + "/cordon-launcher-" + session_id, {}};
  if (::mkdir(move.leaf_dir.c_str(), 0755) != 0)
    throw Error(errno_text("creating " + move.leaf_dir + " for the launcher", errno),
                "start cordon in a cgroup delegated to this user");
  moves_.push_back(move);
  if (int err = write_control_file(move.leaf_dir + "/cgroup.procs", std::to_string(::getpid())))
    throw Error(
        errno_text("moving the launcher into " + move.leaf_dir, err),
        "start cordon in a cgroup delegated to this user (systemd-run --user --scope -p Delegate=yes cordon run ...)");
  // Its keeper too (gone already, there is nothing to move: ESRCH).
  if (companion_ > 0) write_control_file(move.leaf_dir + "/cgroup.procs", std::to_string(companion_));
  for (const auto& controller : missing) {
    if (int err = write_control_file(parent + "/cgroup.subtree_control", "+" + controller)) {
      size_t others = members(parent).size();
      throw Error(
          errno_text("enabling the " + controller + " controller in " + parent + "/cgroup.subtree_control", err) +
              (others ? " (" + std::to_string(others) + " other processes share the launcher's cgroup)" : ""),
          "start cordon in a cgroup of its own: systemd-run --scope -p Delegate=yes cordon run ...");
    }
    moves_.back().enabled.push_back(controller);
  }
}

void SessionCgroup::in_child(const ChildSide& side) {
  // v1: "0" to `tasks` moves the calling thread (this child has only one) without the
  // threadgroup lock a write to cgroup.procs takes: that lock waits out an RCU grace period,
  // 7-15 ms here when launches are spaced out, against about 0.5 ms for `tasks`.
  for (const auto& file : v1_tasks_files_)
    if (int err = write_control_file(file, "0"))
      throw Error(errno_text("joining the session cgroup " + file, err), "nothing ran");
  if (v2_procs_file_.empty() || side.cloned_into_cgroup) return;
  if (int err = write_control_file(v2_procs_file_, "0"))
    throw Error(errno_text("joining the session cgroup " + v2_procs_file_, err), "nothing ran");
}

CgroupFinish SessionCgroup::finish() {
  finished_ = true;
  return clean_up();
}

CgroupFinish SessionCgroup::clean_up() {
  CgroupFinish report;
  for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it) {
    const SessionDir& session = *it;
    if (size_t left = kill_members(session.dir))
      report.problems.push_back(std::to_string(left) + " process(es) were still in the session cgroup " + session.dir +
                                " (killed)");
    collect_hits(session.dir, session.budgets, report.limit_hits);
    if (int err = remove_dir(session.dir))
      report.problems.push_back(errno_text("removing the session cgroup " + session.dir, err));
    else report.removed.push_back(session.dir);
  }
  dirs_.clear();
  for (auto it = moves_.rbegin(); it != moves_.rend(); ++it) {
    const LauncherMove& move = *it;
    DirectoryLock lock(move.parent_dir);
    if (!lock.held()) {
      report.problems.push_back("could not lock " + move.parent_dir + " to restore the launcher's cgroup (left as is)");
      continue;
    }
    std::vector<std::string> children = child_cgroups(move.parent_dir);
    const std::string leaf = move.leaf_dir.substr(move.parent_dir.size() + 1);
    bool others = std::any_of(children.begin(), children.end(), [&](const std::string& c) { return c != leaf; });
    // Another child would lose its budget with the controllers: then the launcher stays in
    // its leaf (removed by a later launch once empty).
    if (others) continue;
    for (const auto& controller : move.enabled)
      write_control_file(move.parent_dir + "/cgroup.subtree_control", "-" + controller);
    int err = write_control_file(move.parent_dir + "/cgroup.procs", std::to_string(::getpid()));
    if (!err && companion_ > 0) write_control_file(move.parent_dir + "/cgroup.procs", std::to_string(companion_));
    if (!err) err = remove_dir(move.leaf_dir);
    if (err) report.problems.push_back(errno_text("restoring the launcher's cgroup " + move.parent_dir, err));
  }
  moves_.clear();
  v1_tasks_files_.clear();
  v2_procs_file_.clear();
  v2_dir_fd_.reset();
  return report;
}

namespace {

bool holds_this_process(const std::string& dir) {
  std::istringstream procs(read_text_file(dir + "/cgroup.procs"));
  const long self = ::getpid();
  for (long pid = 0; procs >> pid;)
    if (pid == self) return true;
  return false;
}

}  // namespace

CgroupFinish sweep_session_cgroups(const std::vector<std::string>& parent_dirs, const std::string& session_id) {
  CgroupFinish report;
  for (const auto& parent : parent_dirs) {
    const std::string dir = parent + "/cordon-" + session_id;
    if (::access(dir.c_str(), F_OK) == 0) {
      let_dying_members_leave(dir, 500);
      if (size_t left = kill_members(dir))
        report.problems.push_back(std::to_string(left) + " process(es) were still in " + dir + " (killed)");
      if (int err = remove_dir(dir)) report.problems.push_back(errno_text("removing the session cgroup " + dir, err));
      else report.removed.push_back(dir);
    }
    // The crashed launcher's own v2 leaf: empty now that it is gone. The controllers it may
    // have enabled in the parent stay enabled (harmless; another session may be using them).
    const std::string leaf = parent + "/cordon-launcher-" + session_id;
    // The session keeper (record/session_keeper.h) sweeping from inside that leaf: it empties
    // when the keeper exits, and the next sweep removes it.
    if (::access(leaf.c_str(), F_OK) == 0 && holds_this_process(leaf)) continue;
    if (::access(leaf.c_str(), F_OK) == 0) {
      if (int err = remove_dir(leaf))
        report.problems.push_back(errno_text("removing the launcher's cgroup " + leaf, err));
      else report.removed.push_back(leaf);
    }
  }
  return report;
}

}  // namespace cordon::cgroup
