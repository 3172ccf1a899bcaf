// The launcher's own work per launch, in-process: config parse, host facts, plan, seccomp
// compile + memfd export. Prints the median and p90 of N iterations in microseconds.
// With SECCOMP_OUT, also writes the compiled filter there: the bench's bare bwrap then runs
// with cordon's exact argv, --seccomp included.
// Usage: cordon_bench_work [CONFIG] [ITERATIONS] [SECCOMP_OUT]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "common/build_config.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/plan/plan.h"
#include "launcher/plan/session_options.h"
#include "launcher/seccomp/compile.h"
#include "launcher/seccomp/policy.h"

int main(int argc, char** argv) {
  std::string config_path = argc > 1 ? argv[1] : cordon::build::kConfigPath;
  int iterations = argc > 2 ? std::atoi(argv[2]) : 200;
  std::vector<double> micros;
  for (int i = 0; i < iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    cordon::Config config = cordon::load_config(config_path);
    // What every launch does (plan/session_options.h): the host facts (the workspace's and,
    // for the jail and the allowlist, the network's) and the plan.
    cordon::SessionOptions options;
    options.command = {"/bin/true"};
    cordon::HostFacts facts = cordon::facts_for(config, options);
    cordon::SandboxPlan plan = cordon::plan_for(config, facts, options);
    cordon::UniqueFd filter = cordon::seccomp::compile_to_memfd(
        cordon::seccomp::build_rules({plan.isolation.allow_ptrace}));
    auto end = std::chrono::steady_clock::now();
    micros.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    if (argc > 3 && i + 1 == iterations) {
      std::ofstream out(argv[3], std::ios::binary);
      char buffer[4096];
      ssize_t n;
      for (off_t at = 0; (n = ::pread(filter.get(), buffer, sizeof buffer, at)) > 0; at += n) out.write(buffer, n);
    }
  }
  std::sort(micros.begin(), micros.end());
  std::printf("launcher work (config + facts + plan + seccomp): median %.0f us, p90 %.0f us over %d runs\n",
              micros[micros.size() / 2], micros[micros.size() * 9 / 10], iterations);
  return 0;
}
