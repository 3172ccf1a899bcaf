#include "probe/runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>

#include "probe/util.h"

namespace cordon::probe {
namespace {

constexpr size_t kMaxReport = 16384;

char verdict_code(Verdict v) {
  switch (v) {
    case Verdict::Blocked: return 'B';
    case Verdict::Escaped: return 'E';
    case Verdict::Inconclusive: return 'I';
  }
  return 'I';
}

[[noreturn]] void child_main(const Context& ctx, const ProbeDef& def, int out) {
  ::setpgid(0, 0);
  ::signal(SIGPIPE, SIG_IGN);
  Tally tally;
  try {
    def.run(ctx, tally);
  } catch (const std::exception& e) {
    tally.inconclusive(std::string("probe error: ") + e.what());
  } catch (...) {
    tally.inconclusive("probe error");
  }
  std::string report(1, verdict_code(tally.verdict()));
  report += printable(tally.evidence(), kMaxReport);
  size_t at = 0;
  while (at < report.size()) {
    ssize_t n = ::write(out, report.data() + at, report.size() - at);
    if (n <= 0) break;
    at += static_cast<size_t>(n);
  }
  ::_exit(0);
}

}  // namespace

ProbeResult run_one(const Context& ctx, const ProbeDef& def, int timeout_ms) {
  ProbeResult result{def.id, def.name, def.family, Verdict::Inconclusive, "", 0};
  const double started = now_ms();
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) {
    result.evidence = "runner: pipe: " + errno_name(errno);
    return result;
  }
  pid_t child = ::fork();
  if (child < 0) {
    result.evidence = "runner: fork: " + errno_name(errno);
    ::close(p[0]);
    ::close(p[1]);
    return result;
  }
  if (child == 0) {
    ::close(p[0]);
    child_main(ctx, def, p[1]);
  }
  ::setpgid(child, child);  // also from here, so the group exists before any kill
  ::close(p[1]);

  std::string report;
  bool timed_out = false;
  const double deadline = started + timeout_ms;
  for (;;) {
    int left = static_cast<int>(deadline - now_ms());
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{p[0], POLLIN, 0};
    int r = ::poll(&pfd, 1, left);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      timed_out = r == 0;
      break;
    }
    char buffer[4096];
    ssize_t n = ::read(p[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child finished (or died)
    if (report.size() < kMaxReport) report.append(buffer, static_cast<size_t>(n));
  }
  ::close(p[0]);
  int status = 0;
  if (timed_out) {
    ::kill(-child, SIGKILL);  // the probe and everything it started in its group
    ::kill(child, SIGKILL);
  }
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  result.duration_ms = now_ms() - started;
  if (timed_out) {
    result.evidence = "no result within " + std::to_string(timeout_ms) + " ms: killed (a hang is never BLOCKED)";
  } else if (WIFSIGNALED(status)) {
    result.evidence = std::string("the probe died of signal ") + ::sigabbrev_np(WTERMSIG(status)) +
                      " before reporting" + (WTERMSIG(status) == SIGSYS ? " (a seccomp kill?)" : "");
  } else if (report.empty()) {
    result.evidence = "the probe exited without a report";
  } else {
    switch (report[0]) {
      case 'B': result.verdict = Verdict::Blocked; break;
      case 'E': result.verdict = Verdict::Escaped; break;
      default: result.verdict = Verdict::Inconclusive; break;
    }
    result.evidence = report.substr(1);
  }
  return result;
}

std::vector<ProbeResult> run_probes(const Context& ctx, const std::vector<const ProbeDef*>& selected) {
  std::vector<ProbeResult> results;
  for (const ProbeDef* def : selected) results.push_back(run_one(ctx, *def, ctx.options.timeout_ms));
  return results;
}

}  // namespace cordon::probe
