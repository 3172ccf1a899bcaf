// The bench's one way of starting and waiting for a launch, so that the two sides of every
// comparison are spawned (posix_spawn) and waited for alike.
//
//   cordon_bench_pairs pairs RUNS WAIT A.json B.json   interleaved pairs A B A B ...; prints
//       "A_MEDIAN_MS B_MEDIAN_MS RATIO_MEDIAN RATIO_P10 RATIO_P90 DIFF_MEDIAN_MS"
//   cordon_bench_pairs concurrent ROUNDS WAIT N A.json  N launches of A at once, waited for
//       together; prints the median wall time of ROUNDS rounds in ms
//
// WAIT is "plain" (waitpid on the spawned process) or "all" (as a child subreaper, until every
// descendant has been reaped: how cordon waits for its sandbox). A side is a JSON object:
//   {"argv": [...], "cwd": "DIR", "fds": {"9": "/dev/null", "11": "FILE", ...}}
// Each fd is opened from its file at that number in the child (read-only; /dev/null for
// writing). A side that exits non-zero stops the bench (exit 1): it measured a failure.
#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

extern char** environ;

namespace {

struct Side {
  std::vector<std::string> argv;
  std::string cwd;
  std::vector<std::pair<int, std::string>> fds;
};

Side load_side(const char* path) {
  std::ifstream in(path);
  nlohmann::json doc = nlohmann::json::parse(in);
  Side side;
  for (const auto& a : doc.at("argv")) side.argv.push_back(a.get<std::string>());
  side.cwd = doc.value("cwd", ".");
  if (doc.contains("fds"))
    for (const auto& [fd, file] : doc["fds"].items()) side.fds.emplace_back(std::stoi(fd), file.get<std::string>());
  return side;
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "cordon_bench_pairs: %s\n", what.c_str());
  std::exit(1);
}

pid_t spawn(const Side& side) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, side.cwd.c_str());
  // Neither side's output is measured: both write to /dev/null (a closed pipe would kill one).
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  for (const auto& [fd, file] : side.fds)
    posix_spawn_file_actions_addopen(&actions, fd, file.c_str(), file == "/dev/null" ? O_RDWR : O_RDONLY, 0);
  std::vector<char*> argv;
  for (const auto& a : side.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int err = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) fail(std::string("posix_spawn ") + argv[0] + ": " + std::strerror(err));
  return pid;
}

void check_status(int status, const Side& side) {
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail(side.argv[0] + " did not exit 0 (wait status " + std::to_string(status) + ")");
}

// Waits for `pids` (plain), or for every descendant of this process (all).
void wait_for(const std::vector<pid_t>& pids, bool all, const Side& side) {
  int status = 0;
  for (pid_t pid : pids) {
    if (::waitpid(pid, &status, 0) != pid) fail("waitpid");
    check_status(status, side);
  }
  if (all)
    while (::waitpid(-1, &status, 0) > 0) {
    }
}

double timed(const Side& side, bool all) {
  auto start = std::chrono::steady_clock::now();
  wait_for({spawn(side)}, all, side);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int pairs(int runs, bool all, const Side& a, const Side& b) {
  for (int i = 0; i < 5; ++i) timed(a, all), timed(b, all);  // warm-up
  std::vector<double> ta, tb, ratios, diffs;
  for (int i = 0; i < runs; ++i) {
    ta.push_back(timed(a, all));
    tb.push_back(timed(b, all));
    ratios.push_back(ta.back() / tb.back());
    diffs.push_back(ta.back() - tb.back());
  }
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  std::printf("%.3f %.3f %.3f %.3f %.3f %.3f\n", median(ta), median(tb), median(ratios), sorted[sorted.size() / 10],
              sorted[sorted.size() * 9 / 10], median(diffs));
  return 0;
}

int concurrent(int rounds, bool all, int n, const Side& a) {
  std::vector<double> walls;
  for (int r = 0; r < rounds; ++r) {
    auto start = std::chrono::steady_clock::now();
    std::vector<pid_t> pids;
    for (int i = 0; i < n; ++i) pids.push_back(spawn(a));
    wait_for(pids, all, a);
    walls.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::printf("%.3f\n", median(walls));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage =
      "usage: cordon_bench_pairs pairs RUNS plain|all A.json B.json | concurrent ROUNDS plain|all N A.json";
  if (argc < 2) fail(usage);
  const std::string mode = argv[1];
  if ((mode == "pairs" && argc != 6) || (mode == "concurrent" && argc != 6) || (mode != "pairs" && mode != "concurrent"))
    fail(usage);
  const bool all = std::string(argv[3]) == "all";
  // As cordon does: orphans of a launch come back here, so "all" waits for them too.
  if (all) ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (mode == "pairs") return pairs(std::atoi(argv[2]), all, load_side(argv[4]), load_side(argv[5]));
  return concurrent(std::atoi(argv[2]), all, std::atoi(argv[4]), load_side(argv[5]));
}
