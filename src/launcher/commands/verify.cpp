#include "launcher/commands/verify.h"

#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/print.h"
#include "common/text.h"
#include "launcher/commands/captured_stdout.h"
#include "launcher/commands/probe_bait.h"
#include "launcher/commands/verify_document.h"
#include "launcher/inputs/paths.h"
#include "launcher/process/subprocess.h"
#include "launcher/run/session.h"

namespace cordon {
namespace {

// A helper, read-only inside every sandbox: its path, or the fix when it is missing.
std::string helper_path(const char* name) {
  std::string path = libexec_dir() + "/" + name;
  if (::access(path.c_str(), X_OK) != 0)
    throw Error(std::string(name) + " not found at " + path, "reinstall cordon (cmake --install)");
  return path;
}

// The options both helpers take from verify's: JSON, or the short report without -v.
void add_report_options(std::vector<std::string>& command, bool json, bool verbose) {
  if (json) command.emplace_back("--json");
  else if (!verbose) command.emplace_back("--failures-only");
}

// One helper's session: verify's status for it and, under --json, what it wrote to stdout.
struct HelperRun {
  int verdict = kExitInconclusive;
  HelperOutput output;
  std::vector<OutsideVerdict> judged_outside;  // the probes' session: what only the launcher could see
};

// Under --json the helper's stdout is captured for the one document. The battery's session is
// recorded as the last verify (`is_verify`).
HelperRun run_helper(const Config& config, const SessionOptions& o, const char* helper, bool is_verify,
                     int (*verdict_of)(int)) {
  HelperRun run;
  run.output.helper = helper;
  if (!o.json) {
    run.verdict = verdict_of(launch_session(config, o, is_verify));
    return run;
  }
  CapturedStdout captured;
  const int status = launch_session(config, o, is_verify);
  run.output.output = captured.finish(kMaxHelperOutput);
  run.verdict = verdict_of(status);
  return run;
}

// `verify --deep`, second launch: the probes attack bait the launcher sets up outside.
HelperRun verify_probes(const Config& config, SessionOptions o, bool verbose) {
  const std::string probe = helper_path("cordon-probe");
  // The battery's own list says how many checks just passed.
  std::string listing = run_capture({helper_path("cordon-battery"), "--list"}).output;
  int checks = 0;
  for (size_t at = 0; (at = listing.find("\n  ", at)) != std::string::npos; ++at) ++checks;
  if (listing.rfind("  ", 0) == 0) ++checks;
  HostFacts facts = facts_for(config, o);
  ProbeBait bait(facts.home, facts.workspace, config.workspace.mode == WorkspaceMode::Review);
  o.command = {probe, "--checks-passed", std::to_string(checks)};
  for (auto& arg : bait.probe_args()) o.command.push_back(arg);
  add_report_options(o.command, o.json, verbose);
  HelperRun run = run_helper(config, o, "cordon-probe", false, verify_status_of_probes);
  // Probe 34's verdict is the host tree's, read here after the session has ended.
  if (bait.has_review_bait()) {
    const std::string escaped = bait.review_escape();
    OutsideVerdict verdict{"34", !escaped.empty(),
                           escaped.empty() ? "the host workspace kept the review bait as planted: the session's edit, "
                                             "rename, deletion and new file stayed in its overlay"
                                           : escaped};
    if (verdict.escaped) {
      print_err("cordon: probe 34 review-writes-stay-in-overlay ESCAPED (judged outside, after the session): " +
                terminal_safe(escaped) + "\n");
      if (run.verdict == kExitSuccess || run.verdict == kExitInconclusive) run.verdict = kExitChecksFailed;
    } else if (!o.json) {
      print_err("cordon: probe 34 review-writes-stay-in-overlay BLOCKED (judged outside, after the session)\n");
    }
    run.judged_outside.push_back(verdict);
  }
  return run;
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

// --json: the one document, and the status it states.
int print_verify_document(const HelperRun& battery, const std::optional<HelperRun>& probes, bool deep, int verdict) {
  std::optional<HelperOutput> probe_output;
  if (probes) probe_output = probes->output;
  VerifyDocument document = verify_document(battery.output, probe_output, deep, verdict,
                                            probes ? probes->judged_outside : std::vector<OutsideVerdict>{});
  for (const auto& problem : document.problems) print_err("cordon: " + terminal_safe(problem) + "\n");
  print_out(document.text);
  return document.exit_code;
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
  o.discard_review = true;  // what the battery and the probes wrote is the audit's, not work to review
  o.command = {helper_path("cordon-battery")};
  add_report_options(o.command, o.json, v.verbose);
  const HelperRun battery = run_helper(config, o, "cordon-battery", true, verify_status_of_battery);
  std::optional<HelperRun> probes;
  if (v.deep && battery.verdict == kExitSuccess) {
    probes = verify_probes(config, o, v.verbose);
  } else if (v.deep) {
    const char* why = battery.verdict == kExitChecksFailed ? "reported FAILs" : "did not pass";
    printf_err("cordon: the battery %s: probes not run\n", why);
  }
  const int verdict = probes ? probes->verdict : battery.verdict;
  return o.json ? print_verify_document(battery, probes, v.deep, verdict) : verdict;
}

}  // namespace cordon
