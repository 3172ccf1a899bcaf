// cordon's command line as data: every command (cordon itself, each subcommand, each
// subcommand's subcommands) with its options, walked from the one definition
// (cli/app_definition.h). The man page, the bash completion and their tests read it, so an
// option added to the definition reaches all of them.
#pragma once

#include <string>
#include <vector>

namespace cordon {

struct CliOption {
  std::vector<std::string> names;  // "-v", "--verbose"; a positional's one name, e.g. "command"
  std::string value;               // what it takes, e.g. "TEXT"; "" for a flag
  std::string description;
  bool positional = false;
  bool required = false;
};

struct CliCommand {
  std::string path;  // "" for cordon itself, "run", "sessions show"
  std::string description;
  std::vector<CliOption> options;
  std::vector<std::string> subcommands;  // the names below this one
  std::string footer;                    // its --help footer: the exit statuses
};

// Every command, depth first, cordon itself first.
std::vector<CliCommand> cli_catalog();

}  // namespace cordon
