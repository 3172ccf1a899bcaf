// RAII for one child process: a still-running child is killed and reaped when its owner
// goes away, so no error path leaves a sandbox behind.
#pragma once

#include <sys/types.h>

#include <optional>

namespace cordon {

class ChildProcess {
 public:
  ChildProcess() = default;
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

  // Non-blocking reap; returns the wait status once the child has exited.
  std::optional<int> try_wait();
  // Blocking reap (EINTR-safe).
  int wait();
  // SIGKILL + reap.
  void kill_and_reap();

 private:
  pid_t pid_ = -1;
};

// 0..255 for a normal exit, 128+N for death by signal N (the shell's convention).
int exit_code_from_wait_status(int status);

}  // namespace cordon
