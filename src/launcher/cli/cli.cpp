#include "launcher/cli/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/build_config.h"
#include "common/error.h"
#include "common/print.h"
#include "common/text.h"
#include "launcher/cli/exit_table.h"
#include "launcher/commands/argv.h"
#include "launcher/commands/doctor.h"
#include "launcher/commands/setup_user.h"
#include "launcher/commands/shim.h"
#include "launcher/commands/status.h"
#include "launcher/commands/verify.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/paths.h"
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

// Which of the session options a subcommand takes.
struct OptionSet {
  bool command = true;  // the positional command after `--`
  bool limits = true;   // --limit NAME=VALUE
  bool weaken = true;   // --test-weaken (test builds only)
};

void add_session_options(CLI::App* cmd, SessionOptions& o, OptionSet set = {}) {
  cmd->add_option("--workspace", o.workspace, "Directory bound read-write (default: config, then $PWD)");
  cmd->add_option(
      "--agent", o.agent,
      "Agent profile to apply (default: the command's name when it is claude, codex or gemini, else generic)");
  if (set.limits)
    cmd->add_option("--limit", o.limits, "Lower a configured resource limit for this run: NAME=VALUE (repeatable)")
        ->allow_extra_args(false);
  cmd->add_option("--network", o.network,
                  "Narrow the network for this run: jail, allowlist or offline (never wider than [network] mode)");
  cmd->add_option("--allow", o.allow,
                  "Allowlist mode: admit one more destination for this run (an allow rule within [network] "
                  "user_allow; repeatable)")
      ->allow_extra_args(false);
  // The command is a positional list; options after `--` belong to it, never to cordon.
  if (set.command) cmd->add_option("command", o.command, "Command to run inside the sandbox (after --)");
#ifdef CORDON_TEST_HOOKS
  if (set.weaken)
    cmd->add_option("--test-weaken", o.weaken, "TEST BUILD ONLY: remove one defence (repeatable)")
        ->allow_extra_args(false);
#else
  (void)set.weaken;
#endif
}

// CLI11 ends a footer function's text with a line break of its own.
std::string without_last_newline(std::string text) {
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// Each subcommand's exit statuses, in its --help: its rows of the one table (cli/exit_table.h),
// made only when help is printed.
std::function<std::string()> exit_rows_of(const char* subcommand) {
  return [subcommand] { return without_last_newline(exit_rows_text(subcommand)); };
}

// The same for a subcommand that has subcommands (shim install, sessions list, ...): CLI11
// passes a footer function on to none of them.
void exit_rows_on_each(CLI::App* cmd, const char* subcommand) {
  cmd->footer(exit_rows_of(subcommand));
  for (CLI::App* sub : cmd->get_subcommands([](CLI::App*) { return true; })) sub->footer(exit_rows_of(subcommand));
}

// Every subcommand and the options it fills.
struct Commands {
  std::string config_path = build::kConfigPath;
  SessionOptions run, argv, verify, status;
  VerifyOptions verify_flags;
  std::string shim_agent, shim_binary, session_id, setup_user;
  bool setup_user_remove = false;
  bool sessions_json = false;
  std::optional<long long> prune_keep, prune_keep_days;
  bool doctor_json = false;
  CLI::App *run_cmd, *argv_cmd, *verify_cmd, *status_cmd, *shim_cmd, *shim_install_cmd, *shim_remove_cmd, *sessions_cmd,
      *doctor_cmd, *sessions_list_cmd, *sessions_gc_cmd, *sessions_prune_cmd, *setup_user_cmd;
};

// The top-level subcommand the command line names ("" when it names none: help, version, a
// mistake). Only that subcommand's options are set up: building every subcommand's options
// was a third of the launcher's instructions before `run` did anything.
std::string named_subcommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--config") {
      ++i;  // its value
      continue;
    }
    if (arg.rfind('-', 0) != 0) return arg;
  }
  return "";
}

void add_session_commands(CLI::App& app, Commands& c, const std::string& named) {
  auto wanted = [&](const char* name) { return named.empty() || named == name; };
  c.run_cmd = app.add_subcommand("run", "Run a command inside the sandbox");
  if (wanted("run")) {
    add_session_options(c.run_cmd, c.run);
    c.run_cmd->add_flag("--filter-output", c.run.filter_output,
                        "Put the sandbox's stdout and stderr through the terminal output filter even when they are "
                        "a pipe or a file (`cordon run --filter-output -- agent | tee log`); without it they pass "
                        "byte for byte ([terminal] filter_pipes)");
    c.run_cmd->add_flag("--scratch", c.run.scratch,
                        "Run in a fresh empty workspace, ~/cordon-scratch/TIME-XXXXXX (kept afterwards), for a "
                        "session without a project");
    c.run_cmd->footer(exit_rows_of("run"));
  }
  c.argv_cmd = app.add_subcommand("argv", "Print the exact bwrap invocation; launch nothing");
  if (wanted("argv")) {
    add_session_options(c.argv_cmd, c.argv);
    c.argv_cmd->add_flag("--json", c.argv.json, "Machine-readable output");
    c.argv_cmd->footer(exit_rows_of("argv"));
  }
  c.verify_cmd = app.add_subcommand("verify", "Launch a sandbox like `run` and check it from inside (cordon-battery)");
  if (wanted("verify")) {
    add_session_options(c.verify_cmd, c.verify, {.command = false});
    c.verify_cmd->add_flag("--json", c.verify.json,
                           "One JSON document (format cordon-verify) holding the battery's and the probes' reports");
    c.verify_cmd->add_flag("--deep", c.verify_flags.deep,
                           "When every check passes, launch again and run the adversarial probes (cordon-probe)");
    c.verify_cmd->add_flag("-v,--verbose", c.verify_flags.verbose,
                           "Print every row (default: the FAIL, ESCAPED and INCONCLUSIVE rows and the summaries)");
    c.verify_cmd->footer(exit_rows_of("verify"));
  }
  c.status_cmd = app.add_subcommand("status", "What is enforced: inside a sandbox, or what `run` would enforce here");
  if (wanted("status")) {
    add_session_options(c.status_cmd, c.status, {.command = false, .limits = false, .weaken = false});
    c.status_cmd->add_flag("--json", c.status.json, "Machine-readable output");
    c.status_cmd->footer(exit_rows_of("status"));
  }
}

void add_shim_command(CLI::App& app, Commands& c, bool wanted) {
  c.shim_cmd = app.add_subcommand("shim", "Make typing an agent's name run it under cordon");
  if (!wanted) return;
  c.shim_install_cmd = c.shim_cmd->add_subcommand("install", "Install a shim for an agent (root)");
  c.shim_install_cmd->add_option("--agent", c.shim_agent, "Agent name, e.g. claude")->required();
  c.shim_install_cmd->add_option("--binary", c.shim_binary, "The real binary (default: found in fixed locations)");
  c.shim_remove_cmd = c.shim_cmd->add_subcommand("remove", "Undo `shim install` exactly (root)");
  c.shim_remove_cmd->add_option("--agent", c.shim_agent, "Agent name")->required();
  c.shim_cmd->add_subcommand("status", "Show what is shimmed");
  c.shim_cmd->require_subcommand(1);
  exit_rows_on_each(c.shim_cmd, "shim");
}

void add_sessions_command(CLI::App& app, Commands& c, bool wanted) {
  c.sessions_cmd = app.add_subcommand("sessions", "The session records: list, show one, sweep crashes, prune");
  if (!wanted) return;
  c.sessions_list_cmd = c.sessions_cmd->add_subcommand("list", "List recorded sessions and their state");
  c.sessions_list_cmd->add_flag("--json", c.sessions_json, "One JSON document (format cordon-sessions)");
  CLI::App* show = c.sessions_cmd->add_subcommand("show",
                                                  "Print one session as one JSON document (cordon-session-record)");
  show->add_option("id", c.session_id, "Session id from `cordon sessions list`")->required();
  c.sessions_gc_cmd = c.sessions_cmd->add_subcommand(
      "gc", "Sweep sessions whose launcher died: kill and remove their cgroups, remove temp dirs, close their records");
  c.sessions_prune_cmd = c.sessions_cmd->add_subcommand("prune",
                                                        "Remove the oldest ended records beyond the retention");
  c.sessions_prune_cmd->add_option("--keep", c.prune_keep, "Keep at most N records (default: [records] keep)")
      ->check(CLI::Range(1LL, 1LL << 40));
  c.sessions_prune_cmd->add_option("--keep-days", c.prune_keep_days, "Remove records older than D days (0: none)")
      ->check(CLI::Range(0LL, 1LL << 40));
  c.sessions_cmd->require_subcommand(1);
  exit_rows_on_each(c.sessions_cmd, "sessions");
}

void add_host_commands(CLI::App& app, Commands& c, const std::string& named) {
  add_shim_command(app, c, named.empty() || named == "shim");
  add_sessions_command(app, c, named.empty() || named == "sessions");
  c.setup_user_cmd = app.add_subcommand(
      "setup-user", "Delegate a cgroup to an ordinary user, so that its sessions' memory and pids budgets hold (root)");
  if (named.empty() || named == "setup-user") {
    c.setup_user_cmd->add_option("user", c.setup_user, "The account to delegate to")->required();
    c.setup_user_cmd->add_flag("--remove", c.setup_user_remove, "Undo it (a cgroup still in use is kept and named)");
    c.setup_user_cmd->footer(
        "Exit status: 0 done; 1 --remove kept a cgroup in use; 2 not root, or no such ordinary "
        "user; 125 a cgroup could not be made or given to the user.");
  }
  c.doctor_cmd = app.add_subcommand("doctor", "Check that this host can enforce the sandbox");
  if (!named.empty() && named != "doctor") return;
  c.doctor_cmd->add_flag("--json", c.doctor_json, "Machine-readable output");
  c.doctor_cmd->footer(exit_rows_of("doctor"));
}

// `cordon --help`'s footer: the whole exit table, and where the installed documentation is
// (README.md and docs/ under share/doc/cordon; a build tree has none).
std::string help_footer() {
  std::string footer = exit_table_text();
  if (std::string docs = doc_dir(); !docs.empty())
    footer += "\nDocumentation: " + docs + "/README.md and " + docs + "/docs/\n";
  return without_last_newline(footer);
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
    }
  if (c.run.filter_output) config.terminal.filter_pipes = true;
  if (*c.status_cmd) return status_command(config, c.status);
  if (*c.argv_cmd) {
    print_argv(plan_for(config, facts_for(config, c.argv), c.argv), c.argv.json);
    return kExitSuccess;
  }
  if (*c.sessions_cmd) {
    std::string dir = sessions_dir(facts_for(config, {}));
    if (*c.sessions_gc_cmd) return run_sessions_gc(dir);
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
  CLI::App app{"cordon: run coding agents in an enforced, tested sandbox"};
  app.set_version_flag("--version", std::string("cordon ") + build::kVersion);
  app.require_subcommand(1);
  Commands c;
  app.add_option("--config", c.config_path,
                 std::string("TEST BUILD ONLY: another configuration file (a release reads only ") +
                     build::kConfigPath + "; battery check 18 FAILs on another path)");
  const std::string named = named_subcommand(argc, argv);
  add_session_commands(app, c, named);
  add_host_commands(app, c, named);
  app.footer(help_footer);
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
