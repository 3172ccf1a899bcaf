#include "launcher/run/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/memfd.h"
#include "common/mountinfo.h"
#include "common/seccomp_compile.h"
#include "common/text.h"
#include "common/unique_fd.h"
#include "launcher/fs/bound_paths.h"
#include "launcher/process/child_process.h"
#include "launcher/process/exec_setup.h"
#include "launcher/process/session_init.h"
#include "launcher/process/spared_children.h"
#include "launcher/review/review_base.h"
#include "launcher/review/review_overlay.h"
#include "launcher/run/bwrap_status.h"
#include "launcher/run/signals.h"
#include "launcher/terminal/output_pipes.h"
#include "launcher/terminal/relay.h"

extern char** environ;

namespace cordon {
namespace {

// One descriptor to place at a planned number in the bwrap child.
struct Placement {
  int source;
  int target;
};

// Runs in the forked child: only async-signal-safe calls until execve.
// `moved` is preallocated scratch space (one slot per placement): no allocation after fork.
[[noreturn]] void exec_bwrap(const std::vector<Placement>& placements, std::vector<int>& moved, char* const argv[],
                             char* const envp[], const sigset_t& child_mask) {
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
  reset_signal_dispositions();  // nothing the caller ignored reaches bwrap or the command
  ::sigprocmask(SIG_SETMASK, &child_mask, nullptr);
  ::execve(argv[0], argv, envp);
  ::_exit(127);
}

// The launcher's fork: with a v2 session cgroup, clone3(CLONE_INTO_CGROUP) makes the child in
// it (no cgroup.procs write, whose threadgroup lock waits out an RCU grace period); anything
// else, or a kernel without clone3 (ENOSYS), a plain fork, and the child joins by writing.
// glibc has no clone3 wrapper: the child keeps the parent's thread id in glibc's thread
// descriptor, which only pthread_kill/raise read (they fail with ESRCH, never signal the
// parent); the child only forks, execs and exits.
pid_t fork_launch_child(const std::vector<LaunchStage*>& stages, bool& cloned_into_cgroup) {
  cloned_into_cgroup = false;
  int cgroup_fd = -1;
  for (const LaunchStage* stage : stages)
    if (stage->clone_into_cgroup_fd() >= 0) cgroup_fd = stage->clone_into_cgroup_fd();
  if (cgroup_fd >= 0) {
    clone_args args{};
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = static_cast<uint64_t>(cgroup_fd);
    long pid = ::syscall(SYS_clone3, &args, sizeof args);
    if (pid >= 0) {
      cloned_into_cgroup = true;
      return static_cast<pid_t>(pid);
    }
  }
  return ::fork();
}

std::string read_all(int fd) {
  std::string text;
  char buffer[512];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  return text;
}

// In the child: runs the stages; on failure reports to the parent and exits.
void run_stages_in_child(const std::vector<LaunchStage*>& stages, const ChildSide& side) {
  const int error_fd = side.error_fd;
  try {
    for (LaunchStage* stage : stages) stage->in_child(side);
  } catch (const Error& e) {
    refuse_from_child(error_fd, e.what(), e.fix());
  } catch (const std::exception& e) {
    refuse_from_child(error_fd, std::string("launch stage failed: ") + e.what(), "");
  }
}

// Rethrows a "what\nfix" report the child sent before it exited, if there is one.
void throw_child_report(const std::string& report) {
  if (report.empty()) return;
  auto newline = report.find('\n');
  throw Error(report.substr(0, newline), newline == std::string::npos ? "" : report.substr(newline + 1));
}

// True when every child left is one the launcher keeps on purpose (process/spared_children.h).
bool only_spared_children_left() {
  const std::vector<pid_t> children = children_of_this_process();
  return std::all_of(children.begin(), children.end(), is_spared_child);
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
    if (only_spared_children_left()) return {};
    ::usleep(100);
  }
  std::vector<std::string> survivors;
  for (pid_t pid : children_of_this_process()) {
    if (is_spared_child(pid)) continue;
    std::string comm = read_text_file("/proc/" + std::to_string(pid) + "/comm");
    if (!comm.empty() && comm.back() == '\n') comm.pop_back();
    survivors.push_back("pid " + std::to_string(pid) + " (" + comm + ")");
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  return survivors;
}

// Everything the bwrap child gets at a planned number, and the launcher's ends of the pipes.
struct Descriptors {
  UniqueFd filter;                     // the seccomp BPF (none when a test hook skips it)
  std::vector<UniqueFd> files;         // the generated files, as sealed memfds
  std::vector<UniqueFd> bound;         // the paths bound by descriptor, opened once (fs/bound_paths.h)
  UniqueFd status_read, status_write;  // bwrap's --json-status-fd
  UniqueFd error_read, error_write;    // a launch stage's "what\nfix" report from the child
  UniqueFd gate_read, gate_write;      // the command gate (plan.command_gate): bwrap's --block-fd
  // Review mode: the upper layer and overlayfs's work directory, made and opened before the
  // fork, and which placement is the workspace's (its source becomes the overlay's root).
  UniqueFd review_upper, review_work, review_dir;
  int workspace_placement = -1;
  std::vector<Placement> placements;
};

// Review mode's layers: STATE/reviews/ID/{upper,work}, each made 0700 by this launcher (an
// existing one is refused: a session's layers are its own) and opened without following links,
// and the base the session starts from (review/review_base.h) written beside them before the
// overlay exists, so no write of the session's can precede it.
void make_review_layers(const SandboxPlan& plan, int workspace_fd, Descriptors& d) {
  const std::string& dir = plan.workspace_plan.review_dir;
  // overlayfs shows its lower layer's own directories, not what is mounted on them: a mount
  // inside the workspace would look empty (or stale) inside, and apply could not see it.
  MountTable mounts(parse_mountinfo(read_text_file("/proc/self/mountinfo")));
  for (const Mount* below : mounts.mounts_below(plan.workspace_plan.path))
    throw Error("review mode cannot show the mount at " + terminal_safe(below->mount_point) +
                    " inside the workspace (an overlay's lower layer hides what is mounted in it)",
                "unmount it, choose a workspace without mounts in it, or use [workspace] mode = \"direct\"");
  const std::string reviews = dir.substr(0, dir.rfind('/'));
  if (::mkdir(reviews.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error(errno_text("making " + terminal_safe(reviews), errno), "nothing ran");
  for (const std::string& made : {dir, dir + "/upper", dir + "/work"})
    if (::mkdir(made.c_str(), 0700) != 0)
      throw Error(errno_text("making the review layer " + terminal_safe(made), errno), "nothing ran");
  d.review_dir = UniqueFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  d.review_upper = UniqueFd(::open((dir + "/upper").c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  d.review_work = UniqueFd(::open((dir + "/work").c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!d.review_upper.valid() || !d.review_work.valid())
    throw Error(errno_text("opening the review layers in " + terminal_safe(dir), errno), "nothing ran");
  // The base was taken from the workspace's path before the manifest; the pinned directory
  // must be the one it describes.
  const review::ReviewBase base = review::parse_review_base(plan.workspace_plan.review_base, dir + "/base.json");
  struct stat pinned {};
  if (::fstat(workspace_fd, &pinned) != 0 || pinned.st_dev != base.workspace_dev || pinned.st_ino != base.workspace_ino)
    throw Error("the workspace changed while the session was being set up", "launch again; nothing ran");
  UniqueFd file(::open((dir + "/base.json").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file.valid()) throw Error(errno_text("writing the review base in " + terminal_safe(dir), errno), "nothing ran");
  write_all(file.get(), plan.workspace_plan.review_base, "the review base");
}

// In the child, in the session's mount namespace: the overlay onto the workspace, and its root
// placed where the plan put the workspace's descriptor. A user (or the jail's user namespace)
// mounts with user.* xattrs; root in the initial user namespace with trusted.* ones.
void mount_review_workspace(Descriptors& d) {
  review::OverlayLayers layers;
  layers.workspace_fd = d.placements[static_cast<size_t>(d.workspace_placement)].source;
  layers.upper_fd = d.review_upper.get();
  layers.work_fd = d.review_work.get();
  std::istringstream map(read_text_file("/proc/self/uid_map"));
  unsigned long long inside = 1, outside = 1, count = 0;
  map >> inside >> outside >> count;
  layers.user_xattr = !(inside == 0 && outside == 0 && count == 4294967295ULL);  // not the initial namespace
  static UniqueFd root;                                                          // open until bwrap is exec'd
  root = review::mount_review_overlay(layers);
  // Which xattrs overlayfs keeps its whiteouts' and opaque directories' marks in: diff and apply
  // read only that namespace (a session can set user.overlay.* on a trusted.* overlay's files).
  review::record_overlay_xattrs(d.review_dir.get(), layers.user_xattr);
  d.placements[static_cast<size_t>(d.workspace_placement)].source = root.get();
}

void make_pipe(UniqueFd& read_end, UniqueFd& write_end) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) throw Error(errno_text("pipe", errno));
  read_end = UniqueFd(ends[0]);
  write_end = UniqueFd(ends[1]);
}

void prepare_descriptors(const SandboxPlan& plan, Descriptors& d) {
  if (plan.isolation.seccomp) {
    d.filter = compile_to_memfd(seccomp::build_rules({plan.isolation.allow_ptrace}));
    d.placements.push_back({d.filter.get(), kSeccompFd});
  }
  for (const auto& file : plan.data_files) {
    d.files.push_back(sealed_memfd_with("cordon:" + file.dest, file.content));
    d.placements.push_back({d.files.back().get(), file.fd});
  }
  for (const auto& path : plan.bound_paths) {
    d.bound.push_back(open_bound_path(path));
    if (plan.workspace_plan.review && path.dest == plan.workspace_plan.path)
      d.workspace_placement = static_cast<int>(d.placements.size());
    d.placements.push_back({d.bound.back().get(), path.fd});
  }
  if (plan.workspace_plan.review) {
    if (d.workspace_placement < 0) throw Error("review mode: the plan binds no workspace", "nothing ran");
    make_review_layers(plan, d.placements[static_cast<size_t>(d.workspace_placement)].source, d);
  }
  make_pipe(d.status_read, d.status_write);
  d.placements.push_back({d.status_write.get(), kStatusFd});
  make_pipe(d.error_read, d.error_write);
  if (plan.command_gate) {
    // A socket, so that the launcher's word is sent with MSG_NOSIGNAL: a bwrap that already
    // died makes it fail with EPIPE, never kill the launcher with SIGPIPE.
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
      throw Error(errno_text("socketpair (the command gate)", errno));
    d.gate_read = UniqueFd(ends[0]);
    d.gate_write = UniqueFd(ends[1]);
    d.placements.push_back({d.gate_read.get(), kCommandGateFd});
  }
}

// Lets bwrap's child start the command. bwrap reads one byte and goes on; it would go on at
// end-of-file too, which is why every holder of the write end (the launcher, its child, the
// session's init) either writes here or dies only after the sandbox is dead.
void open_command_gate(Descriptors& d) {
  if (!d.gate_write.valid()) return;
  const char go = 'G';
  ssize_t n;
  do n = ::send(d.gate_write.get(), &go, 1, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  d.gate_write.reset();  // EPIPE: bwrap is gone, and supervision reports how it ended
}

// The forked child: the stages, the rlimits, then bwrap. Never returns.
[[noreturn]] void run_child(const SandboxPlan& plan, const std::vector<LaunchStage*>& stages, Descriptors& d,
                            std::vector<int>& moved, char* const argv[], const SignalWatch& signals, pid_t launcher,
                            bool cloned_into_cgroup, const terminal::Relay* relay, const terminal::OutputPipes* pipes) {
  // Tied to the launcher before anything else: if it is killed during setup, this child (the
  // jail's holder, then bwrap's monitor, which passes it on with --die-with-parent) dies too.
  if (!die_with_launcher(launcher)) ::_exit(kExitLaunchRefused);
  // The session's own terminal, before anything of the session exists.
  if (relay && !relay->attach_in_child())
    refuse_from_child(d.error_write.get(), errno_text("attaching the sandbox's private terminal", errno),
                      "set [terminal] private = false in the configuration to run without it");
  if (pipes && !pipes->attach_in_child())
    refuse_from_child(d.error_write.get(), errno_text("attaching the sandbox's filtered output pipes", errno),
                      "run without --filter-output ([terminal] filter_pipes = false)");
  run_stages_in_child(stages, ChildSide{d.error_write.get(), plan.command_gate, cloned_into_cgroup});
  if (!apply_rlimits(plan.limits))
    refuse_from_child(d.error_write.get(), "could not apply the session's resource limits (setrlimit)", "");
  // From here on this process only waits outside the session's pid namespace; its init
  // (which returns here) becomes bwrap. See process/session_init.h.
  try {
    if (plan.isolation.session_init)
      fork_session_init(signals.forwarded(), d.error_write.get(), relay && relay->attaches());
    if (plan.workspace_plan.review) mount_review_workspace(d);
  } catch (const Error& e) {
    refuse_from_child(d.error_write.get(), e.what(), e.fix());
  }
  // bwrap starts from --clearenv anyway: give it nothing (a test weakening without it hands it ours).
  char* empty_env[] = {nullptr};
  exec_bwrap(d.placements, moved, argv, plan.isolation.clearenv ? empty_env : environ, signals.child_mask());
}

struct Supervision {
  int wait_status = 0;
  bool wall_clock_hit = false;
  bool operator_hung_up = false;  // the operator's terminal went away: the session was ended
  std::string status;             // bwrap's --json-status-fd stream, as far as it got
};

// bwrap's status stream, read as it arrives: it says when the sandbox's child exists.
class StatusStream {
 public:
  explicit StatusStream(int fd) : fd_(fd) { ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK); }
  int fd() const { return open_ ? fd_ : -1; }
  // Reads what is there; true once the child-pid line has been seen.
  bool read_available(std::string& text) {
    char buffer[512];
    ssize_t n = -1;  // stays -1 when the stream is already closed
    while (open_ && (n = ::read(fd_, buffer, sizeof buffer)) != 0) {
      if (n < 0) {
        if (errno == EINTR) continue;
        break;  // EAGAIN: nothing more for now
      }
      if (text.size() < 65536) text.append(buffer, static_cast<size_t>(n));
    }
    if (n == 0) open_ = false;
    return bwrap_status_says_sandbox_started(text);
  }

 private:
  int fd_;
  bool open_ = true;
};

// Milliseconds until the wall-clock deadline (rounded up), or -1 when there is none.
int poll_timeout(long long wall_clock_seconds, bool hit, std::chrono::steady_clock::time_point deadline) {
  if (wall_clock_seconds <= 0 || hit) return -1;
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

// What supervision does with one signal the launcher received.
struct SignalRouting {
  ChildProcess& child;
  terminal::Relay* relay;  // the private terminal's relay, or nullptr
  bool sandbox_started = false;
  std::vector<int> held;  // signals for bwrap that arrived before it started the sandbox
};

void route_signal(const signalfd_siginfo& info, SignalRouting& r) {
  const int sig = static_cast<int>(info.ssi_signo);
  if (sig == SIGCHLD) return;  // checked by the caller, whatever woke it
  if (r.relay) {
    // The operator's terminal and the sandbox's are two: what the operator's sends (its
    // Ctrl-C when keystrokes are not relayed, a hang-up) and any SIGTSTP go to the
    // sandbox's foreground group through the pty, as a terminal's own signals.
    if (sig == SIGWINCH) return r.relay->window_changed();
    // The kernel's SIGHUP: the operator's terminal hung up. Supervision ends the session.
    if (sig == SIGHUP && static_cast<int>(info.ssi_code) == SI_KERNEL) return r.relay->operator_hangup();
    if (sig == SIGTSTP || static_cast<int>(info.ssi_code) == SI_KERNEL) return r.relay->signal_from_terminal(sig);
  } else if (static_cast<int>(info.ssi_code) == SI_KERNEL) {
    // A terminal's Ctrl-C / hang-up already reached the whole foreground group (the kernel
    // sends it); only signals sent to the launcher alone are passed on.
    return;
  }
  if (r.sandbox_started) ::kill(r.child.pid(), sig);
  else r.held.push_back(sig);
}

// Waits for bwrap's monitor to exit, passing on termination signals, keeping the wall clock
// and relaying the private terminal. A signal sent to the launcher while bwrap is still setting
// up is held until bwrap has reported the sandbox's child (the child then dies with it);
// before that, killing bwrap could leave a half-made sandbox running unsupervised.
// The operator's terminal hung up: the session ends as a shell ends its jobs then, with SIGHUP;
// what is still there after this grace (a command that ignores SIGHUP) is killed, so nothing
// runs on unattended.
constexpr auto kHangupGrace = std::chrono::seconds(2);

// Sends `sig` to the sandbox now, or when bwrap has started it (route_signal's rule).
void signal_session(SignalRouting& r, int sig) {
  if (r.sandbox_started) ::kill(r.child.pid(), sig);
  else r.held.push_back(sig);
}

// The poll timeout: the nearer of the wall clock's deadline and the hangup's.
int supervision_timeout(long long wall_clock_seconds, const Supervision& s,
                        std::chrono::steady_clock::time_point deadline,
                        std::optional<std::chrono::steady_clock::time_point> hangup_kill_at) {
  int timeout = poll_timeout(wall_clock_seconds, s.wall_clock_hit, deadline);
  if (!hangup_kill_at) return timeout;
  auto left = std::chrono::ceil<std::chrono::milliseconds>(*hangup_kill_at - std::chrono::steady_clock::now()).count();
  const int hangup = left < 0 ? 0 : static_cast<int>(left);
  return timeout < 0 ? hangup : std::min(timeout, hangup);
}

// What supervision moves besides signals and bwrap's status: the private terminal's relay and
// the filtered output pipes (either may be absent).
struct Relays {
  terminal::Relay* relay = nullptr;
  terminal::OutputPipes* pipes = nullptr;
};

Supervision supervise(ChildProcess& child, const sigset_t& watched, long long wall_clock_seconds,
                      std::chrono::steady_clock::time_point started, int status_fd, Relays relays) {
  terminal::Relay* relay = relays.relay;
  Supervision result;
  const auto deadline = started + std::chrono::seconds(wall_clock_seconds);
  std::optional<std::chrono::steady_clock::time_point> hangup_kill_at;
  UniqueFd signals(::signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!signals.valid()) throw Error(errno_text("signalfd", errno));
  StatusStream stream(status_fd);
  SignalRouting routing{child, relay, false, {}};
  for (;;) {
    constexpr size_t kPipesAt = 2 + terminal::kRelayPollFds;
    pollfd fds[kPipesAt + terminal::kOutputPipesPollFds] = {{signals.get(), POLLIN, 0}, {stream.fd(), POLLIN, 0}};
    for (size_t i = 2; i < std::size(fds); ++i) fds[i] = pollfd{-1, 0, 0};
    if (relay) relay->poll_fds(fds + 2);
    if (relays.pipes) relays.pipes->poll_fds(fds + kPipesAt);
    const nfds_t count = relays.pipes ? std::size(fds) : relay ? kPipesAt : 2;
    // The relay's tick (a stop it looks for) may wake the loop before any deadline.
    const int deadline_ms = supervision_timeout(wall_clock_seconds, result, deadline, hangup_kill_at);
    const int tick_ms = relay ? relay->tick_timeout_ms() : -1;
    const bool ticking = tick_ms >= 0 && (deadline_ms < 0 || tick_ms < deadline_ms);
    int ready = ::poll(fds, count, ticking ? tick_ms : deadline_ms);
    if (ready < 0 && errno != EINTR) throw Error(errno_text("poll", errno));
    if (relay) relay->tick();
    if (ready == 0 && ticking) continue;
    if (ready == 0) {
      // Killing bwrap's monitor kills the sandbox's init (--die-with-parent), and with it
      // every process of its pid namespace.
      if (hangup_kill_at && std::chrono::steady_clock::now() >= *hangup_kill_at) hangup_kill_at.reset();
      else result.wall_clock_hit = true;
      ::kill(child.pid(), SIGKILL);
      continue;
    }
    if (relay && ready > 0) relay->on_ready(fds + 2);
    if (relays.pipes && ready > 0) relays.pipes->on_ready(fds + kPipesAt);
    // Once per wake-up: what the stream holds decides, never which read brought the line.
    if (fds[1].revents && stream.read_available(result.status) && !routing.sandbox_started) {
      routing.sandbox_started = true;
      for (int sig : routing.held) ::kill(child.pid(), sig);
      routing.held.clear();
    }
    signalfd_siginfo info{};
    while (::read(signals.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) route_signal(info, routing);
    if (relay && relay->operator_hung_up() && !result.operator_hung_up) {
      result.operator_hung_up = true;
      hangup_kill_at = std::chrono::steady_clock::now() + kHangupGrace;
      signal_session(routing, SIGHUP);
    }
    if (auto status = child.try_wait()) {
      result.wait_status = *status;
      stream.read_available(result.status);
      return result;
    }
  }
}

// bwrap exited without starting the command: the most precise reason there is.
[[noreturn]] void throw_setup_failure(const SandboxPlan& plan, int wait_status, int error_read) {
  throw_child_report(read_all(error_read));
  if (WEXITSTATUS(wait_status) == 127)
    throw Error("could not execute " + plan.argv[0], "reinstall bubblewrap: apt-get install bubblewrap");
  throw Error("sandbox setup failed (bwrap exited with status " + std::to_string(WEXITSTATUS(wait_status)) +
                  " before starting the command; its message is above)",
              "run `cordon doctor` to check the host; nothing ran");
}

// After a stage failed: the child's exit status when it is already ending (bwrap failed its
// own setup: the stage's pipes closed under it), waiting a bounded moment; nullopt when it is
// still running (the stage failed for its own reason).
std::optional<int> child_exit_after_stage_failure(ChildProcess& child) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto status = child.try_wait()) return status;
    ::usleep(2000);
  }
  return std::nullopt;
}

// The parent's side of every stage, then the command gate. A stage that fails stops the
// launch with the gate still shut: killing the child kills the session's init, which kills
// bwrap (set up and waiting, or still setting up) before the gate's last writer closes.
// The most precise reason wins: the child's own report, then bwrap's failed setup (its
// message is above; a stage that lost its peer would otherwise blame itself), then the stage's.
void finish_stages_then_open_gate(const SandboxPlan& plan, const std::vector<LaunchStage*>& stages, ChildProcess& child,
                                  Descriptors& d) {
  for (LaunchStage* stage : stages) {
    try {
      stage->after_fork(child.pid());
    } catch (const Error&) {
      std::optional<int> ended = child_exit_after_stage_failure(child);
      if (!ended) child.kill_and_reap();
      reap_survivors();  // the init and the route programmer, reparented here
      throw_child_report(read_all(d.error_read.get()));
      if (ended && WIFEXITED(*ended) && WEXITSTATUS(*ended) != 0) throw_setup_failure(plan, *ended, d.error_read.get());
      throw;
    }
  }
  open_command_gate(d);
}

// The filter's drops by class name, for the receipt (and the line on a terminal at the end).
std::map<std::string, uint64_t> dropped_by_name(const std::array<uint64_t, kTerminalClassCount>& dropped) {
  std::map<std::string, uint64_t> out;
  for (size_t i = 0; i < kTerminalClassCount; ++i)
    if (dropped[i]) out[terminal_class_name(static_cast<TerminalClass>(i))] = dropped[i];
  return out;
}

// The private terminal's report, for the receipt.
TerminalOutcome terminal_outcome(const terminal::RelayReport& report) {
  TerminalOutcome out;
  out.relayed = true;
  out.dropped = dropped_by_name(report.dropped);
  out.bytes_to_operator = report.bytes_to_operator;
  out.bytes_from_operator = report.bytes_from_operator;
  out.output_cut = report.output_cut;
  return out;
}

// Forks the child, finishes the stages, opens the gate and supervises. With the relay, the
// sandbox's output is relayed and the operator's terminal restored before this returns or
// throws (bwrap's own message on a failed setup goes through the pty too).
Supervision start_and_supervise(const SandboxPlan& plan, const std::vector<LaunchStage*>& stages, Descriptors& d,
                                char* const argv[], const SignalWatch& signals, Relays relays, LaunchOutcome& outcome) {
  terminal::Relay* relay = relays.relay;
  const auto started = std::chrono::steady_clock::now();
  std::vector<int> moved(d.placements.size());  // scratch for the child: no allocation after fork
  // Orphans of the sandbox (its init outlives bwrap's monitor by a moment) are reparented to
  // the launcher, which reaps them, instead of lingering as zombies under the host's init.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t launcher = ::getpid();
  bool cloned_into_cgroup = false;
  pid_t pid = fork_launch_child(stages, cloned_into_cgroup);
  if (pid < 0) throw Error(errno_text("fork", errno));
  if (pid == 0) run_child(plan, stages, d, moved, argv, signals, launcher, cloned_into_cgroup, relay, relays.pipes);
  ChildProcess child(pid);
  d.status_write.reset();
  d.error_write.reset();
  d.gate_read.reset();
  if (relay) relay->start(pid);
  if (relays.pipes) relays.pipes->start();
  try {
    finish_stages_then_open_gate(plan, stages, child, d);
    Supervision ended = supervise(child, signals.watched(), plan.limits.wall_clock_seconds, started,
                                  d.status_read.get(), relays);
    if (relay) outcome.terminal = terminal_outcome(relay->finish());
    if (relays.pipes)  // --filter-output: its drops add to the relay's (a pipe beside the pty)
      for (const auto& [name, count] : dropped_by_name(relays.pipes->finish())) outcome.terminal.dropped[name] += count;
    return ended;
  } catch (...) {
    if (relay) relay->finish();
    if (relays.pipes) relays.pipes->finish();
    throw;
  }
}

}  // namespace

LaunchOutcome run_sandbox(const SandboxPlan& plan, const std::vector<LaunchStage*>& stages) {
  const auto started = std::chrono::steady_clock::now();
  Descriptors d;
  prepare_descriptors(plan, d);
  std::vector<char*> argv;
  for (const auto& arg : plan.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);

  SignalWatch signals(plan.terminal.relay);
  signals.throw_if_interrupted();
  // After the stages' constructors (a v2 budget moves the launcher into a leaf first, so the
  // terminal keeper forked here lives there with it).
  // The transcript first: the relay and the pipes write to it, and it ends after them.
  std::unique_ptr<terminal::Transcript> transcript;
  if (!plan.terminal.transcript_path.empty())
    transcript = std::make_unique<terminal::Transcript>(plan.terminal.transcript_path, plan.terminal.transcript_session,
                                                        plan.terminal.transcript_cap);
  std::unique_ptr<terminal::Relay> relay;
  if (plan.terminal.relay) relay = std::make_unique<terminal::Relay>(plan.terminal, transcript.get());
  // After the relay (its keeper, forked without exec, must not hold the pipes' write ends).
  std::unique_ptr<terminal::OutputPipes> pipes;
  if (plan.terminal.filter_fds || (transcript && plan.terminal.record_fds))
    pipes = std::make_unique<terminal::OutputPipes>(plan.terminal, transcript.get());
  if (pipes && !pipes->active()) pipes.reset();
  LaunchOutcome outcome;
  const Supervision ended = start_and_supervise(plan, stages, d, argv.data(), signals, {relay.get(), pipes.get()},
                                                outcome);
  relay.reset();
  pipes.reset();
  if (transcript) {
    transcript->finish();
    outcome.transcript = TranscriptOutcome{transcript->path(), transcript->recorded(), transcript->dropped()};
  }

  // bwrap writes "exit-code" to the status fd only when the command itself ran.
  outcome.command_ran = bwrap_status_says_command_ran(ended.status);
  outcome.exit_code = exit_code_from_wait_status(ended.wait_status);
  outcome.duration_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (ended.wall_clock_hit) outcome.limit_hits.emplace_back("wall_clock_seconds");
  if (ended.operator_hung_up) outcome.ended_by = "operator terminal hung up";
  for (const auto& r : plan.limits.rlimits)
    if (r.resource == RLIMIT_FSIZE && outcome.exit_code == 128 + SIGXFSZ) outcome.limit_hits.push_back(r.name);
  // Every stage's teardown check runs, and the survivors are reaped, whatever fails: a failed
  // check is reported, never a reason to leave a process of the session running.
  for (LaunchStage* stage : stages) {
    try {
      stage->after_exit();
    } catch (const Error& e) {
      outcome.teardown_problems.emplace_back(e.what());
    }
  }
  outcome.survivors = reap_survivors();
  if (WIFEXITED(ended.wait_status) && !outcome.command_ran)
    throw_setup_failure(plan, ended.wait_status, d.error_read.get());
  return outcome;
}

}  // namespace cordon
