#include "launcher/network/proxy_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "common/error.h"
#include "common/memfd.h"
#include "launcher/process/exec_setup.h"
#include "launcher/process/pidfd.h"

namespace cordon::proxy {
namespace {

constexpr int kListenFd = 3;
constexpr int kLogFd = 4;
// The proxy writes a record per open connection on SIGTERM and exits; 2 s is generous.
constexpr int kStopTimeoutMs = 2000;

std::string read_whole(int fd) {
  std::string out;
  if (fd < 0) return out;
  char chunk[8192];
  for (off_t at = 0;;) {
    ssize_t n = ::pread(fd, chunk, sizeof chunk, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(chunk, static_cast<size_t>(n));
    at += n;
  }
  return out;
}

// The forked child: dies with the launcher, has its own session (a terminal's Ctrl-C must not
// end it before the sandbox), default signals, only its three descriptors and no environment.
[[noreturn]] void exec_proxy(char* const argv[], int listen_fd, int log_fd, int messages_fd, pid_t launcher,
                             const sigset_t& stop_signals) {
  if (!become_session_helper(launcher, &stop_signals)) ::_exit(127);
  int null_fd = ::open("/dev/null", O_RDWR);
  // Above the targets first, so no dup2 below overwrites a source still to be moved.
  int listen_high = ::fcntl(listen_fd, F_DUPFD, 10), log_high = ::fcntl(log_fd, F_DUPFD, 10);
  if (null_fd < 0 || listen_high < 0 || log_high < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(null_fd, 1) < 0 ||
      ::dup2(messages_fd, 2) < 0 || ::dup2(listen_high, kListenFd) < 0 || ::dup2(log_high, kLogFd) < 0)
    ::_exit(127);
  ::syscall(SYS_close_range, 5U, ~0U, 0U);
  char* empty_env[] = {nullptr};
  ::execve(argv[0], argv, empty_env);
  ::_exit(127);
}

}  // namespace

std::vector<std::string> proxy_argv(const std::string& proxy_path, const ProxyArgs& args) {
  std::vector<std::string> argv = {proxy_path, "--listen-fd", std::to_string(kListenFd), "--log-fd",
                                   std::to_string(kLogFd)};
  for (const auto& rule : args.allow) argv.insert(argv.end(), {"--allow", rule});
  for (const auto& rule : args.deny) argv.insert(argv.end(), {"--deny", rule});
  for (const auto& cidr : args.refuse) argv.insert(argv.end(), {"--refuse", cidr});
  argv.insert(argv.end(), {"--landlock", args.landlock});
  argv.insert(argv.end(), args.extra.begin(), args.extra.end());
  return argv;
}

void EgressProxy::start(const std::string& proxy_path, UniqueFd listen_fd, const ProxyArgs& args) {
  log_ = create_memfd("cordon:proxy-decisions");
  messages_ = create_memfd("cordon:proxy-messages");
  std::vector<std::string> text = proxy_argv(proxy_path, args);
  std::vector<char*> argv;
  argv.reserve(text.size() + 1);
  for (auto& a : text) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t launcher = ::getpid();
  // SIGTERM and SIGINT blocked from the fork to the proxy's own signalfd (egress_proxy/main.cpp):
  // a stop that comes before the proxy reads them waits pending instead of ending it by the
  // default action (exit 143: a false teardown failure).
  sigset_t stop_signals, before;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  ::pthread_sigmask(SIG_BLOCK, &stop_signals, &before);
  pid_t pid = ::fork();
  if (pid == 0) exec_proxy(argv.data(), listen_fd.get(), log_.get(), messages_.get(), launcher, stop_signals);
  const int fork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) throw Error(errno_text("egress proxy: fork", fork_errno));
  process_ = ChildProcess(pid);
  pidfd_.reset(pidfd_open(pid));
  if (!pidfd_.valid()) throw Error(errno_text("egress proxy: pidfd_open", errno));
}

std::string EgressProxy::stop() {
  if (!process_.running()) return "";
  std::string problems;
  if (pidfd_signal(pidfd_.get(), SIGTERM) != 0 && errno != ESRCH)
    problems = errno_text("could not end the egress proxy (pid " + std::to_string(process_.pid()) + ")", errno);
  if (!wait_readable(pidfd_.get(), kStopTimeoutMs)) {
    pidfd_signal(pidfd_.get(), SIGKILL);
    problems += std::string(problems.empty() ? "" : "; ") + "the egress proxy did not exit within " +
                std::to_string(kStopTimeoutMs / 1000) + " s of SIGTERM (killed; its open connections are unrecorded)";
  }
  int status = process_.wait();
  // SIGTERM's own exit is 0; anything else means the proxy failed while the sandbox ran.
  if (problems.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
    problems = "the egress proxy exited with status " + std::to_string(exit_code_from_wait_status(status)) +
               " during the session: " + messages();
  pidfd_.reset();
  return problems;
}

std::string EgressProxy::decisions() const { return read_whole(log_.get()); }
std::string EgressProxy::messages() const { return read_whole(messages_.get()); }

}  // namespace cordon::proxy
