#include "launcher/commands/verify.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "common/print.h"
#include "launcher/commands/probe_bait.h"
#include "launcher/inputs/paths.h"
#include "launcher/process/subprocess.h"
#include "launcher/run/session.h"

namespace cordon {
namespace {

// The options both helpers take from verify's: JSON, or the short report without -v.
void add_report_options(std::vector<std::string>& command, bool json, bool verbose) {
  if (json) command.emplace_back("--json");
  else if (!verbose) command.emplace_back("--failures-only");
}

// The battery, read-only inside every sandbox, as the sandbox's command.
std::vector<std::string> battery_command(bool json, bool verbose) {
  std::string battery = libexec_dir() + "/cordon-battery";
  if (::access(battery.c_str(), X_OK) != 0)
    throw Error("cordon-battery not found at " + battery, "reinstall cordon (cmake --install)");
  std::vector<std::string> command = {battery};
  add_report_options(command, json, verbose);
  return command;
}

// `verify --deep`, second launch: the probes attack bait the launcher sets up outside.
int verify_probes(const Config& config, SessionOptions o, bool verbose) {
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
  add_report_options(o.command, o.json, verbose);
  return launch_session(config, o);
}

// What a helper's status says when it is not one of its verdicts: launch_session's 125 (the
// teardown could not be verified) stays; anything else means it did not finish its report.
int unfinished(const char* helper, int status) {
  if (status == kExitLaunchRefused) return kExitLaunchRefused;
  if (status > kExitSignalBase) {
    printf_err("cordon: %s died of signal %d: the audit is incomplete\n", helper, status - kExitSignalBase);
  } else {
    printf_err("cordon: %s did not finish (exit status %d): the audit is incomplete\n", helper, status);
  }
  return kExitInconclusive;
}

}  // namespace

// cordon-battery exits with its FAIL count: verify says FAIL with one status, so a count of 2
// never reads as a configuration error. The count stays in the report and the last-verify record.
int verify_status_of_battery(int status) {
  if (status == 0) return kExitSuccess;
  if (status > 0 && status < kBatteryExitUsage) return kExitChecksFailed;
  return unfinished("cordon-battery", status);
}

int verify_status_of_probes(int status) {
  if (status == kProbeExitOk) return kExitSuccess;
  if (status == kProbeExitLeaking) return kExitChecksFailed;
  if (status == kProbeExitIncomplete) return kExitInconclusive;
  return unfinished("cordon-probe", status);
}

int verify_command(const Config& config, SessionOptions o, VerifyOptions v) {
  o.command = battery_command(o.json, v.verbose);
  int verdict = verify_status_of_battery(launch_session(config, o, true));
  if (!v.deep || verdict != kExitSuccess) {
    const char* why = verdict == kExitChecksFailed ? "reported FAILs" : "did not pass";
    if (v.deep) printf_err("cordon: the battery %s: probes not run\n", why);
    return verdict;
  }
  return verify_status_of_probes(verify_probes(config, o, v.verbose));
}

}  // namespace cordon
