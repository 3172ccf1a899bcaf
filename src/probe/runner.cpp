#include "probe/runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>

#include "common/unique_fd.h"
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

// Reads the child's report until EOF or the deadline; returns false when the deadline passed.
bool read_report(int fd, double deadline, std::string& report) {
  for (;;) {
    int left = static_cast<int>(deadline - now_ms());
    if (left <= 0) return false;
    pollfd pfd{fd, POLLIN, 0};
    int r = ::poll(&pfd, 1, left);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return r != 0;
    char buffer[4096];
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // EOF: the child finished (or died)
    if (report.size() < kMaxReport) report.append(buffer, static_cast<size_t>(n));
  }
}

// The verdict from how the child ended and what it reported.
void judge(ProbeResult& result, bool timed_out, int status, const std::string& report, int timeout_ms) {
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
  UniqueFd read_end(p[0]);
  UniqueFd write_end(p[1]);
  pid_t child = ::fork();
  if (child < 0) {
    result.evidence = "runner: fork: " + errno_name(errno);
    return result;
  }
  if (child == 0) {
    read_end.reset();
    child_main(ctx, def, write_end.get());
  }
  ::setpgid(child, child);  // also from here, so the group exists before any kill
  write_end.reset();

  std::string report;
  const bool timed_out = !read_report(read_end.get(), started + timeout_ms, report);
  read_end.reset();
  int status = 0;
  if (timed_out) {
    ::kill(-child, SIGKILL);  // the probe and everything it started in its group
    ::kill(child, SIGKILL);
  }
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  result.duration_ms = now_ms() - started;
  judge(result, timed_out, status, report, timeout_ms);
  return result;
}

std::vector<ProbeResult> run_probes(const Context& ctx, const std::vector<const ProbeDef*>& selected) {
  std::vector<ProbeResult> results;
  results.reserve(selected.size());
  for (const ProbeDef* def : selected) results.push_back(run_one(ctx, *def, ctx.options.timeout_ms));
  return results;
}

}  // namespace cordon::probe
