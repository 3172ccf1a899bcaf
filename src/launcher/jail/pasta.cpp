#include "launcher/jail/pasta.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/error.h"
#include "common/network_opt_out.h"
#include "common/text.h"
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

// pasta's stderr without its syslog complaints (it logs to syslog when it has no terminal).
std::string pasta_messages(const std::string& log) {
  std::istringstream in(log);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("Failed to send", 0) != 0 && !line.empty()) out += (out.empty() ? "" : " | ") + line;
  return out.empty() ? "(no message)" : out;
}

// Clears PR_SET_CHILD_SUBREAPER for its lifetime. The launcher reaps the sandbox's orphans
// as a subreaper; pasta's daemon must not become one of them, or the launcher would have to
// wait out the kernel's slow removal of its tap device (and count pasta as a survivor).
class NotASubreaper {
 public:
  NotASubreaper() {
    ::prctl(PR_GET_CHILD_SUBREAPER, &was_);
    if (was_) ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  }
  ~NotASubreaper() {
    if (was_) ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  }
  NotASubreaper(const NotASubreaper&) = delete;
  NotASubreaper& operator=(const NotASubreaper&) = delete;

 private:
  int was_ = 0;
};

// Ports forwarded in neither direction (-t/-u/-T/-U none) and no gateway-to-host-loopback
// mapping: the host's own services stay out of reach. IPv4 only; DNS sent to the forwarder
// address goes to the host's resolver.
std::vector<std::string> pasta_args(const std::string& pasta_path, pid_t holder, const std::string& dns_forward,
                                    const std::string& pid_file) {
  std::vector<std::string> args = {pasta_path,      "--config-net", "-4",   "-t",     "none", "-u",
                                   "none",          "-T",           "none", "-U",     "none", "--no-map-gw",
                                   "--dns-forward", dns_forward,    "-P",   pid_file, "-q"};
  // As root pasta would switch to "nobody", who cannot enter the holder's user namespace.
  if (::geteuid() == 0) args.insert(args.end(), {"--runas", "0"});
  args.push_back(std::to_string(holder));
  return args;
}

// The forked child: its own session (a terminal's Ctrl-C must not end it mid-session),
// default signals, no inherited descriptors, no environment. Never returns.
[[noreturn]] void exec_pasta(char* const argv[], int log_fd) {
  ::setsid();
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(log_fd, 1) < 0 || ::dup2(log_fd, 2) < 0) ::_exit(127);
  ::syscall(SYS_close_range, 3U, ~0U, 0U);
  char* empty_env[] = {nullptr};
  ::execve(argv[0], argv, empty_env);
  ::_exit(127);
}

}  // namespace

void Pasta::start(const std::string& pasta_path, pid_t holder, const std::string& dns_forward) {
  char dir_template[] = "/tmp/cordon-jail-XXXXXX";
  if (!::mkdtemp(dir_template))
    throw Error(errno_text("egress jail: mkdtemp /tmp/cordon-jail-XXXXXX", errno), fix_report());
  temp_dir_ = dir_template;
  const std::string pid_file = temp_dir_ + "/pasta.pid";
  const std::string log_file = temp_dir_ + "/pasta.log";

  std::vector<std::string> args = pasta_args(pasta_path, holder, dns_forward, pid_file);
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int log_fd = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (log_fd < 0) throw Error(errno_text("egress jail: " + log_file, errno), fix_report());
  UniqueFd log(log_fd);
  // Until pasta's first process has exited (its daemon is then re-parented above us). Only
  // the holder is our child meanwhile, and it is alive and waiting for "G".
  NotASubreaper not_a_subreaper;
  pid_t pid = ::fork();
  if (pid < 0) throw Error(errno_text("egress jail: fork", errno), fix_report());
  if (pid == 0) exec_pasta(argv.data(), log.get());
  // pasta returns once the namespace is configured; its daemon stays behind.
  UniqueFd starter(pidfd_open(pid));
  if (!starter.valid() || !wait_readable(starter.get(), kPastaTimeoutMs)) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    adopt_daemon(pid_file);  // if a daemon was already forked, stop() ends it
    throw Error("egress jail: pasta did not finish attaching within " + std::to_string(kPastaTimeoutMs / 1000) + " s",
                fix_report());
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error("egress jail: pasta could not attach to the sandbox's network namespace (exit status " +
                    std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) +
                    "): " + pasta_messages(read_text_file(log_file)),
                "check that passt is intact (apt-get install --reinstall passt); " + std::string(fix_report()));

  adopt_daemon(pid_file);
  if (!pidfd_.valid())
    throw Error("egress jail: pasta reported success but its process (pid file " + pid_file + ") is not running",
                fix_report());
}

void Pasta::adopt_daemon(const std::string& pid_file) {
  pid_ = static_cast<pid_t>(std::atol(read_text_file(pid_file).c_str()));
  if (pid_ > 0) pidfd_.reset(pidfd_open(pid_));
}

std::string Pasta::stop() {
  std::string problems;
  if (pidfd_.valid()) {
    // Attached by PID, pasta holds the namespace open itself and never leaves on its own, so
    // ending it is the normal teardown. It keeps no state worth a graceful stop: SIGKILL,
    // through the pidfd so a recycled PID can never be hit. Once it is exiting it cannot run
    // again; the kernel's removal of its tap device (~20-40 ms of RCU waits) then finishes in
    // the background instead of delaying the launcher's exit.
    if (pidfd_signal(pidfd_.get(), SIGKILL) != 0 && errno != ESRCH)
      problems += errno_text("could not end pasta (pid " + std::to_string(pid_) + ")", errno);
    else if (!wait_exiting(pidfd_.get(), pid_, kPastaExitTimeoutMs))
      problems += "pasta (pid " + std::to_string(pid_) + ") was sent SIGKILL but has not exited after " +
                  std::to_string(kPastaExitTimeoutMs / 1000) + " s";
    pidfd_.reset();
  }
  if (!temp_dir_.empty()) {
    for (const char* name : {"/pasta.pid", "/pasta.log"}) ::unlink((temp_dir_ + name).c_str());
    if (::rmdir(temp_dir_.c_str()) != 0 && errno != ENOENT)
      problems += std::string(problems.empty() ? "" : "; ") +
                  errno_text("temp dir " + temp_dir_ + " left behind", errno);
    temp_dir_.clear();
  }
  return problems;
}

}  // namespace cordon::jail
