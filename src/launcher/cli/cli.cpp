#include "launcher/cli/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/print.h"
#include "common/text.h"
#include "launcher/cli/app_definition.h"
#include "launcher/commands/argv.h"
#include "launcher/commands/doctor.h"
#include "launcher/commands/review_command.h"
#include "launcher/commands/setup_user.h"
#include "launcher/commands/shim.h"
#include "launcher/commands/status.h"
#include "launcher/commands/transcript_command.h"
#include "launcher/commands/verify.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/paths.h"
#include "launcher/inputs/state_dirs.h"
#include "launcher/plan/session_options.h"
#include "launcher/record/sessions.h"
#include "launcher/run/sandbox.h"
#include "launcher/run/session.h"
#include "launcher/workspace/scratch.h"

namespace cordon {
namespace {

// On a terminal, where a person reads it: a shim that no longer catches its agent's name
// (typing the name would run the agent unsandboxed).
void warn_about_shims() {
  if (!::isatty(2)) return;
  const char* path = std::getenv("PATH");
  for (const ShimHealth& h : shim_health(default_shim_paths(), path ? path : ""))
    if (std::string problem = shim_problem(h); !problem.empty())
      print_err("cordon: WARNING: " + terminal_safe(problem) + "\n");
}

int shim_command(const Commands& c) {
  ShimPaths paths = default_shim_paths();
  if (*c.shim_install_cmd) {
    shim_install(c.shim_agent, c.shim_binary, paths);
    print_out("shimmed " + terminal_safe(c.shim_agent) + ": " + terminal_safe(paths.shim_dir + "/" + c.shim_agent) +
              " now runs it under cordon\n");
    if (std::string hint = audit_command_hint(c.shim_agent, paths); !hint.empty())
      print_out(terminal_safe(hint) + "\n");
  } else if (*c.shim_remove_cmd) {
    shim_remove(c.shim_agent, paths);
    print_out("removed the shim for " + terminal_safe(c.shim_agent) + "\n");
  } else {
    print_out(shim_status(paths));
  }
  return kExitSuccess;
}

// `run --scratch`: the session's workspace is a new empty directory, named on stderr.
void use_scratch_workspace(SessionOptions& o) {
  if (!o.workspace.empty())
    throw Error("--scratch and --workspace both name the workspace", "give one of them", kExitConfigError);
  const char* home = std::getenv("HOME");
  o.workspace = make_scratch_workspace(home ? home : "");
  print_err("cordon: scratch workspace " + terminal_safe(o.workspace) +
            " (a fresh empty directory, kept after the session; delete it when done)\n");
}

// Dispatch to the chosen command. `blocked` is set for launches and outlives the error report.
int dispatch(Commands& c, std::optional<TerminationSignalsBlocked>& blocked) {
  if (*c.shim_cmd) return shim_command(c);
  if (*c.setup_user_cmd) return setup_user_command(c.setup_user, c.setup_user_remove);
  // Inside a sandbox the launcher's own record of intent is the answer, without a config.
  if (*c.status_cmd && status_inside_sandbox(c.status.json)) return kExitSuccess;
  // doctor reports an invalid configuration as a FAIL row beside the host's other rows.
  if (*c.doctor_cmd) return doctor_command(c.config_path, c.doctor_json);
  Config config = load_config(c.config_path);
  for (const auto& [cmd, options] : {std::pair{c.run_cmd, &c.run}, std::pair{c.argv_cmd, &c.argv},
                                     std::pair{c.verify_cmd, &c.verify}, std::pair{c.status_cmd, &c.status}})
    if (cmd->parsed()) {
      narrow_network_mode(config, options->network);
      widen_allowlist_for_run(config, options->allow);
      apply_review_flag(config, options->review);
    }
  if (c.run.filter_output) config.terminal.filter_pipes = true;
  if (*c.status_cmd) return status_command(config, c.status);
  if (*c.argv_cmd) {
    print_argv(plan_for(config, facts_for(config, c.argv), c.argv), c.argv.json);
    return kExitSuccess;
  }
  if (*c.diff_cmd || *c.apply_cmd || *c.discard_cmd) {
    const std::string dir = sessions_dir(facts_for(config, {}));
    if (*c.diff_cmd) return review_diff_command(dir, config, c.review);
    if (*c.apply_cmd) return review_apply_command(dir, config, c.review);
    return review_discard_command(dir, c.review);
  }
  if (*c.sessions_cmd) {
    std::string dir = sessions_dir(facts_for(config, {}));
    if (*c.sessions_gc_cmd) return run_sessions_gc(dir, RecordExport(config.records.export_to, state_dir_of(dir)));
    if (*c.sessions_transcript_cmd) return print_transcript(dir, c.session_id, config.terminal.pass, c.transcript_raw);
    if (*c.sessions_prune_cmd)
      return run_sessions_prune(dir, c.prune_keep.value_or(config.records.keep),
                                c.prune_keep_days.value_or(config.records.keep_days));
    return c.session_id.empty() ? print_sessions_list(dir, c.sessions_json) : print_session(dir, c.session_id);
  }
  // From before anything is made until the record is complete and the error (if any) is
  // printed, a Ctrl-C, hang-up or SIGTERM waits instead of killing the launcher halfway and
  // leaving cgroups, pasta or bait behind; the sandbox still receives it.
  blocked.emplace();
  if (*c.verify_cmd) return verify_command(config, c.verify, c.verify_flags);
  warn_about_shims();
  if (c.run.scratch) use_scratch_workspace(c.run);
  return launch_session(config, c.run);
}

// `run` exits 125 for every failure of its own: a configuration or usage error there must not
// look like a command that exited 2. An interrupted launch keeps 128+N.
int refusal_status(const Commands& c, int status) {
  return c.run_cmd->parsed() && status == kExitConfigError ? kExitLaunchRefused : status;
}

}  // namespace

#ifdef CORDON_TEST_HOOKS
constexpr bool kTestBuild = true;
#else
constexpr bool kTestBuild = false;
#endif

int cli_main(int argc, char** argv) {
  // Every write of the launcher's to a pipe or socket whose reader can die (the jail's holder
  // and route programmer, the proxy, a closed stderr) fails with EPIPE, which the caller
  // reports, instead of killing the launcher before it has written the receipt. Each child's
  // exec path resets dispositions (process/exec_setup.h), so nothing it starts inherits this.
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{kCordonDescription};
  Commands c;
  const std::string named = named_subcommand(argc, argv);
  define_cordon_app(app, c, named);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11's help, version and usage errors (which echo the words it did not expect) go
    // through the printer like every other message.
    std::ostringstream out, err;
    int code = app.exit(e, out, err);
    print_out(out.str());
    print_err(err.str());
    // `cordon run bash -c ...`: the command's own options read as cordon's.
    if (named == "run" && dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr)
      print_err(
          "cordon:   fix: put the command after --, so that its options are its own: cordon run [OPTIONS] -- "
          "COMMAND [ARGS...]\n");
    return code == 0 ? kExitSuccess : refusal_status(c, kExitConfigError);
  }
  std::optional<TerminationSignalsBlocked> blocked;
  try {
    refuse_config_override(c.config_path, kTestBuild);
    return dispatch(c, blocked);
  } catch (const Error& e) {
    // A refusal is one line and its fix another, whatever path or value they echo: a newline
    // or an ESC sequence in it reaches the terminal as \xNN.
    print_err("cordon: error: " + terminal_safe(e.what()) + "\n");
    if (!e.fix().empty()) print_err("cordon:   fix: " + terminal_safe(e.fix()) + "\n");
    return refusal_status(c, e.exit_code());
  } catch (const std::exception& e) {
    print_err("cordon: internal error: " + terminal_safe(e.what()) + "\n");
    return kExitLaunchRefused;
  }
}

}  // namespace cordon
