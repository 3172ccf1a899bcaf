#include "launcher/commands/captured_stdout.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "common/error.h"
#include "common/memfd.h"

namespace cordon {

CapturedStdout::CapturedStdout() : memfd_(create_memfd("cordon-verify-stdout")) {
  std::fflush(stdout);  // what the launcher printed before belongs to the caller
  caller_.reset(::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3));
  if (!caller_.valid()) throw Error(errno_text("keeping stdout aside", errno));
  // dup2 clears close-on-exec on fd 1: the sandbox inherits the memfd as its stdout.
  if (::dup2(memfd_.get(), STDOUT_FILENO) < 0) throw Error(errno_text("capturing stdout", errno));
}

CapturedStdout::~CapturedStdout() { restore(); }

void CapturedStdout::restore() {
  if (!caller_.valid()) return;
  std::fflush(stdout);
  ::dup2(caller_.get(), STDOUT_FILENO);
  caller_.reset();
}

std::optional<std::string> CapturedStdout::finish(size_t limit) {
  restore();
  const off_t size = ::lseek(memfd_.get(), 0, SEEK_END);
  if (size < 0 || static_cast<size_t>(size) > limit) return std::nullopt;
  std::string text(static_cast<size_t>(size), '\0');
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::pread(memfd_.get(), text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    done += static_cast<size_t>(n);
  }
  return text;
}

}  // namespace cordon
