#include "launcher/cli/app_definition.h"

#include <functional>

#include "launcher/cli/exit_table.h"
#include "launcher/commands/version.h"
#include "launcher/inputs/paths.h"

namespace cordon {

std::string without_last_newline(std::string text) {
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

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

namespace {

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
  cmd->add_flag("--review", o.review,
                "Review mode for this run: the session writes an overlay; nothing reaches the workspace until "
                "`cordon apply` ([workspace] mode)");
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
  c.sessions_cmd = app.add_subcommand("sessions",
                                      "The session records: list, show one, its transcript, sweep crashes, prune");
  if (!wanted) return;
  c.sessions_list_cmd = c.sessions_cmd->add_subcommand("list", "List recorded sessions and their state");
  c.sessions_list_cmd->add_flag("--json", c.sessions_json, "One JSON document (format cordon-sessions)");
  CLI::App* show = c.sessions_cmd->add_subcommand("show",
                                                  "Print one session as one JSON document (cordon-session-record)");
  show->add_option("id", c.session_id, "Session id from `cordon sessions list`")->required();
  c.sessions_transcript_cmd = c.sessions_cmd->add_subcommand(
      "transcript", "Show what a session wrote ([records] transcript), through the output filter");
  c.sessions_transcript_cmd->add_option("id", c.session_id, "Session id from `cordon sessions list`")->required();
  c.sessions_transcript_cmd->add_flag("--raw", c.transcript_raw,
                                      "The bytes as the sandbox wrote them (only to a pipe or file, never a terminal)");
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

// Review mode's commands (docs/review.md): what a review-mode session changed, applied or thrown away.
void add_review_commands(CLI::App& app, Commands& c, const std::string& named) {
  auto wanted = [&](const char* name) { return named.empty() || named == name; };
  auto add_session = [&](CLI::App* cmd) {
    cmd->add_option("--session", c.review.session,
                    "The review-mode session (default: the newest pending review of the workspace you are in)");
  };
  c.diff_cmd = app.add_subcommand("diff",
                                  "Show what a review-mode session changed, as a patch, and the scan's findings");
  if (wanted("diff")) {
    add_session(c.diff_cmd);
    c.diff_cmd->add_flag("--stat", c.review.stat, "A summary per file, like git diff --stat");
    c.diff_cmd->add_flag("--name-status", c.review.name_status, "One line per file: A, M, D or T and its path");
    c.diff_cmd->add_flag("--json", c.review.json, "One JSON document (format cordon-review-diff), findings included");
    c.diff_cmd->add_option("--color", c.review.color, "auto (on a terminal), always or never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    c.diff_cmd->footer(exit_rows_of("diff"));
  }
  c.apply_cmd = app.add_subcommand("apply", "Write a review-mode session's changes into the host workspace");
  if (wanted("apply")) {
    add_session(c.apply_cmd);
    c.apply_cmd
        ->add_option("--accept", c.review.accept,
                     "Accept one blocking finding by its id (as `cordon diff` lists it); repeat for each")
        ->allow_extra_args(false);  // `--accept ID PATH`: PATH is a path, not a second id
    c.apply_cmd->add_flag("--dry-run", c.review.dry_run, "Show what would be applied; write nothing");
    c.apply_cmd->add_flag("--interactive", c.review.interactive, "Ask for each change on the terminal");
    c.apply_cmd->add_option("paths", c.review.paths,
                            "Only these paths (relative to the workspace) and what is below them");
    c.apply_cmd->footer(exit_rows_of("apply"));
  }
  c.discard_cmd = app.add_subcommand("discard",
                                     "Throw away a review-mode session's changes (the host tree is untouched)");
  if (wanted("discard")) {
    add_session(c.discard_cmd);
    c.discard_cmd->footer(exit_rows_of("discard"));
  }
}

// `cordon --help`'s footer: the whole exit table, and where the installed documentation is
// (README.md and docs/ under share/doc/cordon; a build tree has none).
std::string help_footer() {
  std::string footer = exit_table_text();
  if (std::string docs = doc_dir(); !docs.empty())
    footer += "\nDocumentation: " + docs + "/README.md and " + docs + "/docs/\n";
  return without_last_newline(footer);
}

}  // namespace

void define_cordon_app(CLI::App& app, Commands& c, const std::string& named) {
  // The report runs bwrap and pasta --version: made only when asked for.
  app.set_version_flag(
      "--version", [] { return without_last_newline(version_report(gather_version_facts())); },
      "Print cordon's version and commit and the bwrap and pasta it finds (for a bug report), then exit");
  app.require_subcommand(1);
  app.add_option("--config", c.config_path,
                 std::string("TEST BUILD ONLY: another configuration file (a release reads only ") +
                     build::kConfigPath + "; battery check 18 FAILs on another path)");
  add_session_commands(app, c, named);
  add_review_commands(app, c, named);
  add_host_commands(app, c, named);
  app.footer(help_footer);
}

}  // namespace cordon
