// cordon-probe: adversarial breakout probes (docs/probes.md). Exit status: 0 SANDBOX OK,
// 2 AUDIT INCOMPLETE, 3 SANDBOX LEAKING, 64 usage error, 1 --selftest failed.
#include <cstdio>
#include <set>

#include "common/build_config.h"
#include "common/print.h"
#include "common/text.h"
#include "probe/context.h"
#include "probe/probe.h"
#include "probe/report.h"
#include "probe/runner.h"
#include "probe/selftest.h"

int main(int argc, char** argv) {
  using namespace cordon::probe;
  std::string error;
  auto options = parse_options(argc, argv, &error);
  if (!options) {
    cordon::print_err("cordon-probe: " + cordon::terminal_safe(error) + "\n" + usage_text());
    return kExitUsage;
  }
  if (options->help) {
    cordon::print_out(usage_text());
    return kExitOk;
  }
  if (options->version) {
    cordon::printf_out("cordon-probe %s\n", cordon::build::kVersion);
    return kExitOk;
  }
  if (options->list) {
    cordon::print_out(render_list(options->json));
    return kExitOk;
  }
  if (options->selftest) return run_selftest();

  std::vector<const ProbeDef*> selected;
  std::set<std::string> wanted(options->only.begin(), options->only.end());
  for (const auto& p : all_probes())
    if (wanted.empty() || wanted.count(p.id)) selected.push_back(&p);
  for (const auto& id : wanted) {
    bool known = false;
    for (const auto& p : all_probes()) known |= id == p.id;
    if (!known) {
      cordon::print_err("cordon-probe: --only: no probe " + cordon::terminal_safe(id) + " (see --list)\n");
      return kExitUsage;
    }
  }

  // The context snapshots inherited descriptors: nothing may be opened before it.
  Context ctx = make_context(std::move(*options));
  std::fflush(stdout);
  std::vector<ProbeResult> results = run_probes(ctx, selected);
  Summary summary = summarize(results, ctx.options.checks_passed.value_or(0));
  cordon::print_out(ctx.options.json ? render_json(ctx, results, summary)
                                     : render_text(results, summary, ctx.options.failures_only));
  std::fflush(stdout);
  return summary.exit_code;
}
