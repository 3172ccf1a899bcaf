#include "launcher/commands/verify.h"

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/error.h"
#include "launcher/commands/probe_bait.h"
#include "launcher/inputs/paths.h"
#include "launcher/process/subprocess.h"
#include "launcher/run/session.h"

namespace cordon {
namespace {

// The battery, read-only inside every sandbox, as the sandbox's command.
std::vector<std::string> battery_command(bool json) {
  std::string battery = libexec_dir() + "/cordon-battery";
  if (::access(battery.c_str(), X_OK) != 0)
    throw Error("cordon-battery not found at " + battery, "reinstall cordon (cmake --install)");
  std::vector<std::string> command = {battery};
  if (json) command.emplace_back("--json");
  return command;
}

// `verify --deep`, second launch: the probes attack bait the launcher sets up outside.
int verify_probes(const Config& config, SessionOptions o) {
  const std::string libexec = libexec_dir();
  std::string probe = libexec + "/cordon-probe";
  if (::access(probe.c_str(), X_OK) != 0)
    throw Error("cordon-probe not found at " + probe, "reinstall cordon (cmake --install)");
  // The battery's own list says how many checks just passed.
  std::string listing = run_capture({libexec + "/cordon-battery", "--list"}).output;
  int checks = 0;
  for (size_t at = 0; (at = listing.find("\n  ", at)) != std::string::npos; ++at) ++checks;
  if (listing.rfind("  ", 0) == 0) ++checks;
  HostFacts facts = facts_for(config, o);
  ProbeBait bait(facts.home, facts.workspace);
  o.command = {probe, "--checks-passed", std::to_string(checks)};
  for (auto& arg : bait.probe_args()) o.command.push_back(arg);
  if (o.json) o.command.emplace_back("--json");
  return launch_session(config, o);
}

}  // namespace

int verify_command(const Config& config, SessionOptions o, bool deep) {
  o.command = battery_command(o.json);
  int failed = launch_session(config, o, true);
  if (!deep || failed != 0) {
    if (deep) std::fprintf(stderr, "cordon: the battery reported FAILs: probes not run\n");
    return failed;
  }
  return verify_probes(config, o);
}

}  // namespace cordon
