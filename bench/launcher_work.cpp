// The launcher's own work per launch, in-process: config parse, host facts, plan, seccomp
// compile + memfd export. Prints the median and p90 of N iterations in microseconds, then the
// median of each phase, and (as root) of the walk of /etc the facts include (timed apart).
// With SECCOMP_OUT, also writes the compiled filter there: the bench's bare bwrap then runs
// with cordon's exact argv, --seccomp included.
// Usage: cordon_bench_work [CONFIG] [ITERATIONS] [SECCOMP_OUT]
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "common/build_config.h"
#include "common/seccomp_compile.h"
#include "common/seccomp_policy.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/inputs/root_view.h"
#include "launcher/plan/plan.h"
#include "launcher/plan/session_options.h"

namespace {

using Clock = std::chrono::steady_clock;

double micros_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

void write_filter(const cordon::UniqueFd& filter, const char* path) {
  std::ofstream out(path, std::ios::binary);
  char buffer[4096];
  ssize_t n;
  for (off_t at = 0; (n = ::pread(filter.get(), buffer, sizeof buffer, at)) > 0; at += n) out.write(buffer, n);
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_path = argc > 1 ? argv[1] : cordon::build::kConfigPath;
  int iterations = argc > 2 ? std::atoi(argv[2]) : 200;
  std::vector<double> micros;
  std::array<std::vector<double>, 5> phases;  // config, facts, plan, seccomp, the /etc walk
  for (int i = 0; i < iterations; ++i) {
    const auto start = Clock::now();
    cordon::Config config = cordon::load_config(config_path);
    const auto parsed = Clock::now();
    // What every launch does (plan/session_options.h): the host facts (the workspace's and,
    // for the jail and the allowlist, the network's) and the plan.
    cordon::SessionOptions options;
    options.command = {"/bin/true"};
    cordon::HostFacts facts = cordon::facts_for(config, options);
    const auto gathered = Clock::now();
    cordon::SandboxPlan plan = cordon::plan_for(config, facts, options);
    const auto planned = Clock::now();
    cordon::UniqueFd filter = cordon::seccomp::compile_to_memfd(
        cordon::seccomp::build_rules({plan.isolation.allow_ptrace}));
    const auto end = Clock::now();
    micros.push_back(micros_between(start, end));
    phases[0].push_back(micros_between(start, parsed));
    phases[1].push_back(micros_between(parsed, gathered));
    phases[2].push_back(micros_between(gathered, planned));
    phases[3].push_back(micros_between(planned, end));
    // The facts of a root launch include this walk; timed again alone, outside the total.
    const auto walk = Clock::now();
    if (facts.uid == 0) (void)cordon::private_entries("/etc");
    phases[4].push_back(micros_between(walk, Clock::now()));
    if (argc > 3 && i + 1 == iterations) write_filter(filter, argv[3]);
  }
  std::sort(micros.begin(), micros.end());
  std::printf("launcher work (config + facts + plan + seccomp): median %.0f us, p90 %.0f us over %d runs\n",
              micros[micros.size() / 2], micros[micros.size() * 9 / 10], iterations);
  std::printf("phases, median us: config %.0f, facts %.0f (the /etc walk %.0f), plan %.0f, seccomp %.0f\n",
              median(phases[0]), median(phases[1]), median(phases[4]), median(phases[2]), median(phases[3]));
  return 0;
}
