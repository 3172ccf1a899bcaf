#include "launcher/run/sandbox.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <chrono>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/text.h"
#include "common/memfd.h"
#include "common/unique_fd.h"
#include "launcher/process/child_process.h"
#include "launcher/seccomp/compile.h"

extern char** environ;

namespace cordon {
namespace {

// Held blocked around a launch, forwarded to the sandbox while it runs.
constexpr int kTerminationSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// One descriptor to place at a planned number in the bwrap child.
struct Placement {
  int source;
  int target;
};

// Runs in the forked child: only async-signal-safe calls until execve.
// `moved` is preallocated scratch space (one slot per placement): no allocation after fork.
[[noreturn]] void exec_bwrap(const std::vector<Placement>& placements, std::vector<int>& moved,
                             char* const argv[], char* const envp[], const sigset_t& child_mask) {
  // Move every source above the target range first so no dup2 clobbers a later source.
  const size_t count = placements.size();
  int above_targets = 0;
  for (const Placement& p : placements) above_targets = p.target > above_targets ? p.target : above_targets;
  for (size_t i = 0; i < count; ++i) moved[i] = ::fcntl(placements[i].source, F_DUPFD, above_targets + 1);
  for (size_t i = 0; i < count; ++i)
    if (moved[i] < 0 || ::dup2(moved[i], placements[i].target) < 0) ::_exit(127);
  // Nothing the launcher inherited reaches the sandbox: every other descriptor closes on exec.
  ::syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
  for (size_t i = 0; i < count; ++i) ::fcntl(placements[i].target, F_SETFD, 0);
  ::sigprocmask(SIG_SETMASK, &child_mask, nullptr);
  ::execve(argv[0], argv, envp);
  ::_exit(127);
}

std::string read_all(int fd) {
  std::string text;
  char buffer[512];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  return text;
}

// In the child: runs the stages; on failure sends "what\nfix" to the parent and exits.
void run_stages_in_child(const std::vector<LaunchStage*>& stages, int error_fd) {
  try {
    for (LaunchStage* stage : stages) stage->in_child();
  } catch (const Error& e) {
    std::string report = std::string(e.what()) + "\n" + e.fix();
    ssize_t ignored = ::write(error_fd, report.data(), report.size());
    (void)ignored;
    ::_exit(kExitLaunchRefused);
  } catch (const std::exception& e) {
    std::string report = std::string("launch stage failed: ") + e.what() + "\n";
    ssize_t ignored = ::write(error_fd, report.data(), report.size());
    (void)ignored;
    ::_exit(kExitLaunchRefused);
  }
}

// Rethrows a "what\nfix" report the child sent before it exited, if there is one.
void throw_child_report(const std::string& report) {
  if (report.empty()) return;
  auto newline = report.find('\n');
  throw Error(report.substr(0, newline), newline == std::string::npos ? "" : report.substr(newline + 1));
}

// The number after "key": in bwrap's JSON status lines, or "" when absent.
std::string status_field(const std::string& status, const std::string& key) {
  auto at = status.find("\"" + key + "\"");
  if (at == std::string::npos) return {};
  auto begin = status.find_first_of("0123456789", at + key.size() + 2);
  auto end = status.find_first_not_of("0123456789", begin);
  return begin == std::string::npos ? "" : status.substr(begin, end - begin);
}

// The launcher's remaining children: as child subreaper, every process of the session that
// outlived its parent ends up here.
std::vector<pid_t> remaining_children() {
  std::vector<pid_t> out;
  const std::string self = std::to_string(::getpid());
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  while (dirent* entry = ::readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    std::string stat = read_text_file(std::string("/proc/") + entry->d_name + "/stat");
    auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string state, ppid;
    fields >> state >> ppid;
    if (ppid == self) out.push_back(static_cast<pid_t>(std::stoi(entry->d_name)));
  }
  ::closedir(proc);
  return out;
}

// Reaps what the sandbox left reparented to the launcher, waiting a bounded moment for the
// ones still exiting; anything alive after that is named, killed and reaped.
std::vector<std::string> reap_survivors() {
  // The sandbox's init usually finishes dying within microseconds: poll finely. The bound is
  // time, not a count of polls: on a loaded machine (the test suite runs one test per core
  // beside other builds) ~0.1 s of polls was overrun by an init still tearing down its
  // pid namespace, and reported as a survivor.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < deadline) {
    int status;
    pid_t r;
    while ((r = ::waitpid(-1, &status, WNOHANG)) > 0) {
    }
    if (r < 0 && errno == ECHILD) return {};  // none left
    ::usleep(100);
  }
  std::vector<std::string> survivors;
  for (pid_t pid : remaining_children()) {
    std::string comm = read_text_file("/proc/" + std::to_string(pid) + "/comm");
    if (!comm.empty() && comm.back() == '\n') comm.pop_back();
    survivors.push_back("pid " + std::to_string(pid) + " (" + comm + ")");
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  return survivors;
}

}  // namespace

TerminationSignalsBlocked::TerminationSignalsBlocked() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kTerminationSignals) sigaddset(&set, sig);
  ::sigprocmask(SIG_BLOCK, &set, &previous_);
}

TerminationSignalsBlocked::~TerminationSignalsBlocked() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }

LaunchOutcome run_sandbox(const SandboxPlan& plan, const std::vector<LaunchStage*>& stages) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<UniqueFd> owned;
  std::vector<Placement> placements;

  UniqueFd filter;
  if (!plan.skip_seccomp) {
    filter = compile_to_memfd(seccomp::build_rules(plan.seccomp));
    placements.push_back({filter.get(), kSeccompFd});
  }
  for (const auto& file : plan.data_files) {
    owned.push_back(sealed_memfd_with("cordon:" + file.dest, file.content));
    placements.push_back({owned.back().get(), file.fd});
  }
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) throw Error(errno_text("pipe", errno));
  UniqueFd status_read(status_pipe[0]);
  UniqueFd status_write(status_pipe[1]);
  placements.push_back({status_write.get(), kStatusFd});
  int error_pipe[2];
  if (::pipe2(error_pipe, O_CLOEXEC) != 0) throw Error(errno_text("pipe", errno));
  UniqueFd error_read(error_pipe[0]);
  UniqueFd error_write(error_pipe[1]);

  std::vector<char*> argv;
  for (const auto& arg : plan.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);

  // Signals arrive through sigwaitinfo, so forwarding cannot race with the child's exit.
  sigset_t watched, original;
  sigemptyset(&watched);
  sigaddset(&watched, SIGCHLD);
  for (int sig : kTerminationSignals) sigaddset(&watched, sig);
  if (::sigprocmask(SIG_BLOCK, &watched, &original) != 0) throw Error(errno_text("sigprocmask", errno));
  struct MaskRestore {
    sigset_t mask;
    ~MaskRestore() { ::sigprocmask(SIG_SETMASK, &mask, nullptr); }
  } restore{original};
  // The sandbox starts with the signals the launcher watches unblocked, even when the caller
  // holds them blocked around setup and teardown (TerminationSignalsBlocked).
  sigset_t child_mask = original;
  sigdelset(&child_mask, SIGCHLD);
  for (int sig : kTerminationSignals) sigdelset(&child_mask, sig);

  // A terminal's Ctrl-C or hang-up that arrived while the launcher was setting up (signals
  // held blocked) reached no sandbox: stop here instead of starting one the user interrupted.
  sigset_t pending;
  if (::sigpending(&pending) == 0)
    for (int sig : kTerminationSignals)
      if (sigismember(&pending, sig)) {
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        timespec now{0, 0};
        ::sigtimedwait(&one, nullptr, &now);
        throw Error(std::string("interrupted by SIG") + ::sigabbrev_np(sig) + " before the sandbox started; nothing ran",
                    "", 128 + sig);
      }

  // bwrap starts from --clearenv anyway: give it nothing (test hooks may hand it ours).
  char* empty_env[] = {nullptr};
  char** envp = plan.inherit_environment ? environ : empty_env;
  std::vector<int> moved(placements.size());
  // Orphans of the sandbox (its init outlives bwrap's monitor by a moment) are reparented to
  // the launcher, which reaps them, instead of lingering as zombies under the host's init.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  pid_t pid = ::fork();
  if (pid < 0) throw Error(errno_text("fork", errno));
  if (pid == 0) {
    run_stages_in_child(stages, error_write.get());
    if (!apply_rlimits(plan.limits)) {
      const char report[] = "could not apply the session's resource limits (setrlimit)\n";
      ssize_t ignored = ::write(error_write.get(), report, sizeof report - 1);
      (void)ignored;
      ::_exit(kExitLaunchRefused);
    }
    exec_bwrap(placements, moved, argv.data(), envp, child_mask);
  }
  ChildProcess child(pid);
  status_write.reset();
  error_write.reset();
  for (LaunchStage* stage : stages) {
    try {
      stage->after_fork(pid);
    } catch (const Error&) {
      // The child's own report (why it stopped) is more precise than the parent's view.
      child.kill_and_reap();
      throw_child_report(read_all(error_read.get()));
      throw;
    }
  }

  int wait_status = 0;
  const auto deadline = started + std::chrono::seconds(plan.limits.wall_clock_seconds);
  bool wall_clock_hit = false;
  for (;;) {
    siginfo_t info{};
    int sig;
    if (plan.limits.wall_clock_seconds > 0 && !wall_clock_hit) {
      auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        // Killing bwrap's monitor kills the sandbox's init (--die-with-parent), and with it
        // every process of its pid namespace.
        wall_clock_hit = true;
        ::kill(child.pid(), SIGKILL);
        continue;
      }
      timespec timeout{static_cast<time_t>(left.count() / 1000000000), static_cast<long>(left.count() % 1000000000)};
      sig = ::sigtimedwait(&watched, &info, &timeout);
      if (sig < 0 && errno == EAGAIN) continue;
    } else {
      sig = ::sigwaitinfo(&watched, &info);
    }
    if (sig < 0) {
      if (errno == EINTR) continue;
      throw Error(errno_text("sigwaitinfo", errno));
    }
    if (sig == SIGCHLD) {
      if (auto status = child.try_wait()) {
        wait_status = *status;
        break;
      }
      continue;
    }
    // A terminal's Ctrl-C / hang-up already reached the whole foreground group (the kernel
    // sends it); only signals sent to the launcher alone are passed on.
    if (info.si_code != SI_KERNEL) ::kill(child.pid(), sig);
  }

  // bwrap writes "exit-code" to the status fd only when the command itself ran.
  const std::string status = read_all(status_read.get());
  LaunchOutcome outcome;
  outcome.command_ran = !status_field(status, "exit-code").empty();
  outcome.exit_code = exit_code_from_wait_status(wait_status);
  outcome.duration_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (wall_clock_hit) outcome.limit_hits.push_back("wall_clock_seconds");
  for (const auto& r : plan.limits.rlimits)
    if (r.resource == RLIMIT_FSIZE && outcome.exit_code == 128 + SIGXFSZ) outcome.limit_hits.push_back(r.name);
  for (LaunchStage* stage : stages) stage->after_exit();
  outcome.survivors = reap_survivors();
  if (WIFEXITED(wait_status) && !outcome.command_ran) {
    throw_child_report(read_all(error_read.get()));
    if (WEXITSTATUS(wait_status) == 127)
      throw Error("could not execute " + plan.argv[0], "reinstall bubblewrap: apt-get install bubblewrap");
    throw Error("sandbox setup failed (bwrap exited with status " +
                    std::to_string(WEXITSTATUS(wait_status)) + " before starting the command; its message is above)",
                "run `cordon doctor` to check the host; nothing ran");
  }
  return outcome;
}

}  // namespace cordon
