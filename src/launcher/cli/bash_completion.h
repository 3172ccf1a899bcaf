// cordon's bash completion, written from the command-line definition (cli/cli_catalog.h) at
// build time (man/generate.cpp) and installed to share/bash-completion/completions/cordon:
// subcommands and the options of each, the values the options take (agent profiles, network
// modes, limit names, directories), and for `sessions show` the ids `cordon sessions list`
// prints when the completion runs.
#pragma once

#include <string>
#include <vector>

#include "launcher/cli/cli_catalog.h"

namespace cordon {

struct CompletionValues {
  std::vector<std::string> agents;         // --agent: the shipped profiles
  std::vector<std::string> network_modes;  // --network
  std::vector<std::string> limits;         // --limit: NAME (completed as NAME=)
};

// The values as cordon knows them: builtin_agent_profiles(), the network modes, kLimitKeys.
CompletionValues completion_values();

// The script: defines _cordon and registers it for `cordon`.
std::string bash_completion_script(const std::vector<CliCommand>& catalog, const CompletionValues& values);

}  // namespace cordon
