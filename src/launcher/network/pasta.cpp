#include "launcher/network/pasta.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "common/error.h"
#include "common/memfd.h"
#include "common/network_opt_out.h"
#include "common/text.h"
#include "launcher/process/exec_setup.h"
#include "launcher/process/pidfd.h"

namespace cordon::jail {
namespace {

constexpr int kPastaTimeoutMs = 10000;
constexpr int kPastaExitTimeoutMs = 2000;

const std::string& fix_report() {
  static const std::string fix = "nothing ran. Check the message above; or, to run without network confinement, " +
                                 egress_jail_opt_out();
  return fix;
}

// pasta's output without its syslog complaints (it logs to syslog when it has no terminal).
std::string pasta_messages(int log_fd) {
  std::string log;
  char buffer[4096];
  ssize_t n;
  off_t at = 0;
  while (log.size() < 65536 && (n = ::pread(log_fd, buffer, sizeof buffer, at)) > 0) {
    log.append(buffer, static_cast<size_t>(n));
    at += n;
  }
  std::istringstream in(log);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("Failed to send", 0) != 0 && !line.empty()) out += (out.empty() ? "" : " | ") + line;
  return out.empty() ? "(no message)" : out;
}

// Ports forwarded in neither direction (-t/-u/-T/-U none) and no gateway-to-host-loopback
// mapping: the host's own services stay out of reach. IPv4 only; DNS sent to the forwarder
// address goes to the host's resolver. -f keeps pasta in the foreground, as our child.
std::vector<std::string> pasta_args(const std::string& pasta_path, pid_t holder, const std::string& dns_forward,
                                    const std::string& ready_fifo) {
  std::vector<std::string> args = {pasta_path,      "--config-net", "-4",   "-t", "none",     "-u",
                                   "none",          "-T",           "none", "-U", "none",     "--no-map-gw",
                                   "--dns-forward", dns_forward,    "-f",   "-P", ready_fifo, "-q"};
  // As root pasta would switch to "nobody", who cannot enter the holder's user namespace.
  if (::geteuid() == 0) args.insert(args.end(), {"--runas", "0"});
  args.push_back(std::to_string(holder));
  return args;
}

// The forked child: dies with the launcher, its own session (a terminal's Ctrl-C must not end
// it mid-session), default signal dispositions and mask, no inherited descriptors, no
// environment. Never returns.
[[noreturn]] void exec_pasta(char* const argv[], int log_fd, pid_t launcher) {
  if (!become_session_helper(launcher)) ::_exit(127);
  int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(log_fd, 1) < 0 || ::dup2(log_fd, 2) < 0) ::_exit(127);
  ::syscall(SYS_close_range, 3U, ~0U, 0U);
  char* empty_env[] = {nullptr};
  ::execve(argv[0], argv, empty_env);
  ::_exit(127);
}

// Marks pasta's tap device persistent, so that pasta's exit does not unregister it (one RCU
// grace period or more: 20-50 ms measured here, which the launcher would wait out to reap
// pasta); the kernel removes it with the jail's network namespace, in the background, once
// pasta and the sandbox are gone. Best effort: without ptrace access to pasta (pidfd_getfd)
// teardown is only slower.
void keep_tap_past_pasta(int pidfd, pid_t pid) {
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
  DIR* dir = ::opendir(fds.c_str());
  if (!dir) return;
  int tap = -1;
  char target[64];
  for (int scanned = 0; dirent* entry = ::readdir(dir);) {
    if (++scanned > 4096) break;
    ssize_t n = ::readlinkat(::dirfd(dir), entry->d_name, target, sizeof target - 1);
    if (n > 0 && std::string(target, static_cast<size_t>(n)) == "/dev/net/tun") tap = std::atoi(entry->d_name);
  }
  ::closedir(dir);
  if (tap < 0) return;
  UniqueFd ours(static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd, tap, 0)));
  if (ours.valid()) ::ioctl(ours.get(), TUNSETPERSIST, 1);
}

}  // namespace

std::string pasta_temp_dir(const std::string& session_id) { return "/tmp/cordon-jail-" + session_id; }

void Pasta::start(const std::string& pasta_path, pid_t holder, const std::string& dns_forward,
                  const std::string& session_id) {
  const std::string dir = pasta_temp_dir(session_id);
  // A fresh name (the session id is random): an existing one is someone else's, never reused.
  if (::mkdir(dir.c_str(), 0700) != 0) throw Error(errno_text("egress jail: mkdir " + dir, errno), fix_report());
  temp_dir_ = dir;
  const std::string fifo = temp_dir_ + "/ready";
  if (::mkfifo(fifo.c_str(), 0600) != 0) throw Error(errno_text("egress jail: mkfifo " + fifo, errno), fix_report());
  // Open for reading first and without blocking: pasta's open for writing then never waits,
  // and its write of its pid is the readiness signal.
  UniqueFd ready(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!ready.valid()) throw Error(errno_text("egress jail: " + fifo, errno), fix_report());
  log_ = create_memfd("cordon:pasta-log");

  std::vector<std::string> args = pasta_args(pasta_path, holder, dns_forward, fifo);
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t launcher = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw Error(errno_text("egress jail: fork", errno), fix_report());
  if (pid == 0) exec_pasta(argv.data(), log_.get(), launcher);
  process_ = ChildProcess(pid);
  pidfd_.reset(pidfd_open(pid));
  if (!pidfd_.valid()) throw Error(errno_text("egress jail: pidfd_open(pasta)", errno), fix_report());
  await_ready(ready.get());
  keep_tap_past_pasta(pidfd_.get(), pid);
  std::string left = remove_temp_dir();
  if (!left.empty()) throw Error("egress jail: " + left, fix_report());
}

void Pasta::await_ready(int ready_fd) {
  pollfd fds[2] = {{ready_fd, POLLIN, 0}, {pidfd_.get(), POLLIN, 0}};
  int n;
  do n = ::poll(fds, 2, kPastaTimeoutMs);
  while (n < 0 && errno == EINTR);
  if (n == 0)
    throw Error("egress jail: pasta did not finish attaching within " + std::to_string(kPastaTimeoutMs / 1000) + " s",
                fix_report());
  char text[32] = {};
  ssize_t got = (fds[0].revents & POLLIN) ? ::read(ready_fd, text, sizeof text - 1) : 0;
  if (got > 0 && std::atol(text) == process_.pid()) return;
  if (fds[1].revents & POLLIN) {
    int status = process_.wait();
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
      throw Error(
          "egress jail: pasta reported success (exit status 0) without attaching: run in the foreground (-f), "
          "it must write its pid once the namespace is configured and stay",
          "check that /usr/bin/pasta is Debian's passt (apt-get install --reinstall passt); " +
              std::string(fix_report()));
    throw Error("egress jail: pasta could not attach to the sandbox's network namespace (exit status " +
                    std::to_string(exit_code_from_wait_status(status)) + "): " + pasta_messages(log_.get()),
                "check that passt is intact (apt-get install --reinstall passt); " + std::string(fix_report()));
  }
  throw Error("egress jail: pasta signalled readiness with an unexpected pid (\"" + std::string(text) + "\")",
              fix_report());
}

std::string Pasta::remove_temp_dir() {
  if (temp_dir_.empty()) return "";
  ::unlink((temp_dir_ + "/ready").c_str());
  std::string problem;
  if (::rmdir(temp_dir_.c_str()) != 0 && errno != ENOENT)
    problem = errno_text("temp dir " + temp_dir_ + " left behind", errno);
  temp_dir_.clear();
  return problem;
}

std::string Pasta::stop() {
  std::string problems;
  if (process_.running()) {
    // Attached by PID, pasta holds the namespace open itself and never leaves on its own, so
    // ending it is the normal teardown. It keeps no state worth a graceful stop: SIGKILL,
    // through the pidfd so a recycled PID can never be hit; then reaped, being our child.
    if (pidfd_signal(pidfd_.get(), SIGKILL) != 0 && errno != ESRCH)
      problems += errno_text("could not end pasta (pid " + std::to_string(process_.pid()) + ")", errno);
    if (wait_readable(pidfd_.get(), kPastaExitTimeoutMs)) process_.wait();
    else
      problems += "pasta (pid " + std::to_string(process_.pid()) + ") was sent SIGKILL but has not exited after " +
                  std::to_string(kPastaExitTimeoutMs / 1000) + " s";
  }
  pidfd_.reset();
  std::string left = remove_temp_dir();
  if (!left.empty()) problems += (problems.empty() ? "" : "; ") + left;
  return problems;
}

}  // namespace cordon::jail
