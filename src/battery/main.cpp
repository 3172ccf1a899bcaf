// cordon-battery: checks from inside a sandbox that its defences hold. Read-only: it reads
// /proc, mountinfo, netlink and files, and forks (without exec) only for two kernel probes.
// Exit status: the number of FAILed checks; 64 for a usage or session-file error.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "battery/check.h"
#include "battery/context.h"
#include "battery/report.h"
#include "battery/selection.h"
#include "common/error.h"
#include "common/intent.h"
#include "common/print.h"
#include "common/text.h"

namespace {

constexpr int kUsageError = cordon::kBatteryExitUsage;  // above any FAIL count

const char* kUsage =
    "usage: cordon-battery [--json] [--failures-only] [--only NN[,NN...]] [--session PATH] [--list] [--help]\n"
    "  Checks from inside a sandbox that its defences hold; exit status = number of FAILs.\n"
    "  --json          one JSON object instead of rows\n"
    "  --failures-only the FAIL and WARN rows and the summary, not every row (cordon verify without -v)\n"
    "  --only NN,...   run only these checks (e.g. --only 07,19)\n"
    "  --session PATH  the launcher's session file (default /run/cordon/session; without one,\n"
    "                  every check falls back to launcher-independent evidence)\n"
    "  --list          list the checks and exit\n";

int usage_error(const std::string& message) {
  cordon::print_err("cordon-battery: " + cordon::terminal_safe(message) + "\n" + kUsage);
  return kUsageError;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cordon::battery;
  bool json = false, list = false, failures_only = false;
  bool session_given = false;
  std::string session_path = cordon::kSessionFilePath;
  std::set<std::string> only;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (arg == "--json") json = true;
    else if (arg == "--failures-only") failures_only = true;
    else if (arg == "--list") list = true;
    else if (arg == "--help" || arg == "-h") {
      cordon::print_out(kUsage);
      return 0;
    } else if (arg == "--only" || arg.rfind("--only=", 0) == 0) {
      const char* v = arg == "--only" ? value() : argv[i] + 7;
      if (!v) return usage_error("--only needs a list of check numbers");
      std::string bad;
      if (!parse_only(v, only, &bad)) return usage_error("--only: no check numbered \"" + bad + "\"");
    } else if (arg == "--session" || arg.rfind("--session=", 0) == 0) {
      const char* v = arg == "--session" ? value() : argv[i] + 10;
      if (!v || !*v) return usage_error("--session needs a path");
      session_path = v;
      session_given = true;
    } else {
      return usage_error("unknown argument \"" + arg + "\"");
    }
  }
  if (list) {
    cordon::print_out(render_list(all_checks()));
    return 0;
  }

  std::string problem;
  auto context = load_context(session_path, session_given, &problem);
  if (!context) {
    cordon::print_err("cordon-battery: " + cordon::terminal_safe(problem) + "\n");
    return kUsageError;
  }
  Report report;
  report.session_file = context->session_path;
  if (context->session) report.profile = context->session->agent.name;
  for (const auto& spec : all_checks())
    if (only.empty() || only.count(spec.id)) report.results.push_back(run_check(spec, *context));

  bool colour = !json && ::isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR");
  // Details echo what the checks measured (paths, names): the printer escapes them, and adds
  // the status colours itself.
  if (json) cordon::print_out(render_json(report));
  else if (colour) cordon::print_out_highlighted(render_plain(report, failures_only), status_colours());
  else cordon::print_out(render_plain(report, failures_only));
  std::fflush(stdout);
  return report.failed();
}
