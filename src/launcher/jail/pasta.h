// pasta, attached from outside to the holder's network namespace by PID: started with every
// port forward off, its readiness taken from its own return (it returns once the namespace is
// configured and leaves a daemon), its PID from its pid file in a private temp dir.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/unique_fd.h"

namespace cordon::jail {

class Pasta {
 public:
  Pasta() = default;
  ~Pasta() { stop(); }
  Pasta(const Pasta&) = delete;
  Pasta& operator=(const Pasta&) = delete;

  // Attaches pasta to `holder` and returns once it has configured the namespace. Throws
  // cordon::Error with pasta's own message when it fails or does not finish in time.
  void start(const std::string& pasta_path, pid_t holder, const std::string& dns_forward);

  // Ends the daemon and removes the temp dir. Returns what could not be cleaned up ("" = all).
  std::string stop();

  pid_t pid() const { return pid_; }

 private:
  void adopt_daemon(const std::string& pid_file);  // the daemon's PID from its pid file

  std::string temp_dir_;  // private mkdtemp dir: pid file, log
  UniqueFd pidfd_;        // the daemon, once attached
  pid_t pid_ = -1;
};

}  // namespace cordon::jail
