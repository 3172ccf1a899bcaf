// cordon's command line, defined once: the subcommands, their options and help texts, the
// exit-status footers. cli.cpp parses with it; the man page and the bash completion
// (man/generate.cpp) are written from it, so neither can miss an option the binary has.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "common/build_config.h"
#include "launcher/commands/review_command.h"
#include "launcher/commands/verify.h"
#include "launcher/plan/session_options.h"

namespace cordon {

inline constexpr const char* kCordonDescription = "cordon: run coding agents in an enforced, tested sandbox";

// Every subcommand and the options it fills.
struct Commands {
  std::string config_path = build::kConfigPath;
  SessionOptions run, argv, verify, status;
  VerifyOptions verify_flags;
  std::string shim_agent, shim_binary, session_id, setup_user;
  bool setup_user_remove = false;
  bool sessions_json = false;
  bool transcript_raw = false;
  std::optional<long long> prune_keep, prune_keep_days;
  bool doctor_json = false;
  ReviewOptions review;  // diff, apply, discard
  CLI::App *diff_cmd{}, *apply_cmd{}, *discard_cmd{};
  CLI::App *run_cmd{}, *argv_cmd{}, *verify_cmd{}, *status_cmd{}, *shim_cmd{}, *shim_install_cmd{}, *shim_remove_cmd{},
      *sessions_cmd{}, *doctor_cmd{}, *sessions_list_cmd{}, *sessions_gc_cmd{}, *sessions_prune_cmd{},
      *sessions_transcript_cmd{}, *setup_user_cmd{};
};

// The top-level subcommand the command line names ("" when it names none: help, version, a
// mistake). Only that subcommand's options are set up: building every subcommand's options
// was a third of the launcher's instructions before `run` did anything.
std::string named_subcommand(int argc, char** argv);

// Defines the whole command line on `app` (made with kCordonDescription), the options filling
// `c`. Only the options of subcommand `named` are set up ("" = every subcommand's: help, the
// man page, the completion).
void define_cordon_app(CLI::App& app, Commands& c, const std::string& named);

// CLI11 ends a footer function's text with a line break of its own.
std::string without_last_newline(std::string text);

}  // namespace cordon
