// pasta, attached from outside to the holder's network namespace by PID, with every port
// forward off. It runs in the foreground as the launcher's own child, so it is tied to the
// session: the kernel kills it when the launcher dies (PR_SET_PDEATHSIG, SIGKILL included)
// and the launcher reaps it (no zombie under a PID 1 that does not reap). Its readiness is
// its pid-file write, which pasta makes once the namespace is configured; the "file" is a
// FIFO in a private temp dir that exists only while pasta attaches.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/unique_fd.h"
#include "launcher/process/child_process.h"

namespace cordon::jail {

// Where pasta's readiness FIFO lives while it attaches: named by the session, so a sweep
// after a crashed launcher finds it (record/sweep).
std::string pasta_temp_dir(const std::string& session_id);

class Pasta {
 public:
  Pasta() = default;
  ~Pasta() { stop(); }
  Pasta(const Pasta&) = delete;
  Pasta& operator=(const Pasta&) = delete;

  // Attaches pasta to `holder` and returns once it has configured the namespace. Throws
  // cordon::Error with pasta's own message when it fails or does not finish in time.
  void start(const std::string& pasta_path, pid_t holder, const std::string& dns_forward,
             const std::string& session_id);

  // Ends pasta, reaps it and removes the temp dir. Returns what could not be cleaned up ("" = all).
  std::string stop();

  pid_t pid() const { return process_.pid(); }

 private:
  void await_ready(int ready_fd);  // throws when pasta exits, lies or times out first
  std::string remove_temp_dir();

  std::string temp_dir_;  // private dir holding the readiness FIFO, until pasta is ready
  UniqueFd log_;          // pasta's stdout and stderr: a memfd, read when it fails
  UniqueFd pidfd_;        // pasta itself: signalled and polled without PID reuse races
  ChildProcess process_;
};

}  // namespace cordon::jail
