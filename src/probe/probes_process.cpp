// Process isolation (60-64): reaching a process outside the sandbox. The caller starts one
// and passes --target-pid PID[:START]. Nothing here can hurt it: the signals are 0 and
// SIGCONT, ptrace is PTRACE_SEIZE (which does not stop the tracee) undone when this probe's
// process exits, and /proc/PID/mem is opened but not read.
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include <cerrno>

#include "probe/context.h"
#include "probe/probe.h"
#include "probe/target.h"
#include "probe/util.h"

namespace cordon::probe {
namespace {

// Shared preamble: nothing to do without a target, or when the number is a namesake.
bool target_or_report(const Context& ctx, Tally& tally, pid_t* pid) {
  TargetView t = resolve_target(ctx);
  if (t.state == TargetView::State::None) {
    tally.inconclusive("no --target-pid given: no process outside the sandbox to reach");
    return false;
  }
  if (t.state == TargetView::State::NotAddressable) {
    tally.blocked(t.why);
    return false;
  }
  if (!t.why.empty()) tally.note(t.why);
  *pid = t.pid;
  return true;
}

// 60 -----------------------------------------------------------------------------------
void probe_signal(const Context& ctx, Tally& tally) {
  pid_t pid = 0;
  if (!target_or_report(ctx, tally, &pid)) return;
  if (::kill(pid, 0) != 0) {
    tally.blocked("kill(" + std::to_string(pid) + ", 0): " + errno_name(errno));
    return;
  }
  if (::kill(pid, SIGCONT) == 0) tally.escaped("SIGCONT delivered to pid " + std::to_string(pid));
  else tally.blocked("kill(" + std::to_string(pid) + ", SIGCONT): " + errno_name(errno));
}

// 61 -----------------------------------------------------------------------------------
void probe_ptrace(const Context& ctx, Tally& tally) {
  pid_t pid = 0;
  if (!target_or_report(ctx, tally, &pid)) return;
  if (::ptrace(PTRACE_SEIZE, pid, nullptr, nullptr) == 0) {
    ::ptrace(PTRACE_DETACH, pid, nullptr, nullptr);  // may fail while running; our exit detaches
    tally.escaped("PTRACE_SEIZE attached to pid " + std::to_string(pid));
  } else {
    tally.blocked("PTRACE_SEIZE " + std::to_string(pid) + ": " + errno_name(errno));
  }
}

// 62 -----------------------------------------------------------------------------------
void probe_environ(const Context& ctx, Tally& tally) {
  pid_t pid = 0;
  if (!target_or_report(ctx, tally, &pid)) return;
  const std::string path = "/proc/" + std::to_string(pid) + "/environ";
  ReadResult r = read_some(path, 65536);
  if (!r.ok) {
    tally.blocked(path + ": " + errno_name(r.err));
    return;
  }
  std::vector<std::string> names;
  size_t at = 0;
  while (at < r.data.size()) {
    size_t end = r.data.find('\0', at);
    if (end == std::string::npos) end = r.data.size();
    std::string kv = r.data.substr(at, end - at);
    names.push_back(printable(kv.substr(0, kv.find('=')), 30));
    at = end + 1;
  }
  tally.escaped(path + " readable: " + std::to_string(names.size()) + " variables (" + join_limited(names, 5) + ")");
}

// 63 -----------------------------------------------------------------------------------
void probe_mem(const Context& ctx, Tally& tally) {
  pid_t pid = 0;
  if (!target_or_report(ctx, tally, &pid)) return;
  const std::string path = "/proc/" + std::to_string(pid) + "/mem";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::close(fd);
    tally.escaped(path + " opened (the target's memory is readable)");
  } else {
    tally.blocked(path + ": " + errno_name(errno));
  }
}

// 64 -----------------------------------------------------------------------------------
// Host processes listed in /proc: kernel threads (kthreadd) or more than one process without
// a parent mean this /proc shows the host's PID namespace.
void probe_host_visible(const Context& ctx, Tally& tally) {
  std::vector<std::string> roots;
  bool kthreadd = false;
  int listed = 0;
  for (pid_t pid : visible_pids()) {
    ++listed;
    auto ppid = proc_ppid(pid);
    if (ppid && *ppid == 0) roots.push_back(std::to_string(pid));
    if (pid == 2) {
      auto comm = read_text("/proc/2/comm", 64);
      kthreadd |= comm && comm->rfind("kthreadd", 0) == 0;
    }
  }
  if (kthreadd) tally.escaped("kernel threads are listed (pid 2 kthreadd): this /proc is the host's");
  else if (roots.size() > 1)
    tally.escaped(std::to_string(roots.size()) + " processes without a parent (" + join_limited(roots) +
                  "): this /proc shows another PID namespace's roots");
  TargetView t = resolve_target(ctx);
  if (t.state == TargetView::State::Candidate && exists("/proc/" + std::to_string(t.pid)) && ctx.options.target->start)
    tally.escaped("the target pid " + std::to_string(t.pid) + " (same start time) is listed in /proc");
  if (tally.empty())
    tally.blocked(std::to_string(listed) + " processes listed, one root (pid " + (roots.empty() ? "?" : roots[0]) +
                  "), no kernel threads" + (t.state == TargetView::State::None ? "" : ", target not listed"));
}

}  // namespace

std::vector<ProbeDef> process_probes() {
  return {
      {"60", "proc-signal", "process", "signal the host target (0, then SIGCONT)",
       "ESRCH / EPERM (also the Landlock signal scope)", probe_signal},
      {"61", "proc-ptrace", "process", "PTRACE_SEIZE the host target", "ESRCH / EPERM", probe_ptrace},
      {"62", "proc-environ", "process", "read the host target's /proc/PID/environ", "ENOENT / EACCES", probe_environ},
      {"63", "proc-mem", "process", "open the host target's /proc/PID/mem", "ENOENT / EACCES", probe_mem},
      {"64", "proc-host-visible", "process", "list host processes in /proc (kthreadd, foreign roots, the target)",
       "one root, no kernel threads, target absent", probe_host_visible},
  };
}

}  // namespace cordon::probe
