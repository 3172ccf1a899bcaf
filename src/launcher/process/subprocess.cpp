#include "launcher/process/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "common/error.h"
#include "common/unique_fd.h"
#include "launcher/process/child_process.h"
#include "launcher/process/exec_setup.h"

namespace cordon {

CapturedRun run_capture(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(errno_text("pipe", errno));
  UniqueFd read_end(fds[0]);
  UniqueFd write_end(fds[1]);
  pid_t pid = ::fork();
  if (pid < 0) throw Error(errno_text("fork", errno));
  if (pid == 0) {
    // Default signals: the launcher may hold termination signals blocked around a launch, and
    // its caller may have left some ignored.
    reset_signal_dispositions();
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(write_end.get(), 1) < 0 || ::dup2(write_end.get(), 2) < 0)
      ::_exit(127);
    char* empty_env[] = {nullptr};
    ::execve(argv[0], argv.data(), empty_env);
    ::_exit(127);
  }
  ChildProcess child(pid);
  write_end.reset();
  CapturedRun run;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(read_end.get(), buffer, sizeof buffer)) != 0) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    run.output.append(buffer, static_cast<size_t>(n));
  }
  run.exit_code = exit_code_from_wait_status(child.wait());
  return run;
}

}  // namespace cordon
