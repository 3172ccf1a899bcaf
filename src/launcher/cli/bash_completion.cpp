#include "launcher/cli/bash_completion.h"

#include <set>

#include "common/limit_keys.h"
#include "common/network_modes.h"
#include "common/text.h"
#include "launcher/inputs/config.h"

namespace cordon {
namespace {

std::string words(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& w : list) out += (out.empty() ? "" : " ") + w;
  return out;
}

// Per command path: the options and subcommands to offer, as one `case` of the script.
std::string command_cases(const std::vector<CliCommand>& catalog) {
  std::string out;
  for (const CliCommand& command : catalog) {
    std::vector<std::string> offered;
    for (const CliOption& o : command.options)
      if (!o.positional) offered.insert(offered.end(), o.names.begin(), o.names.end());
    offered.insert(offered.end(), command.subcommands.begin(), command.subcommands.end());
    out += "    " + shell_quote(command.path) + ") offered=" + shell_quote(words(offered)) + " ;;\n";
  }
  return out;
}

// Every option that takes a value: its value is the next word, never a subcommand.
std::string valued_options(const std::vector<CliCommand>& catalog) {
  std::set<std::string> valued;
  for (const CliCommand& command : catalog)
    for (const CliOption& o : command.options)
      if (!o.positional && !o.value.empty()) valued.insert(o.names.begin(), o.names.end());
  return words({valued.begin(), valued.end()});
}

constexpr const char* kScriptHead =
    R"sh(# bash completion for cordon. Generated from its command-line definition at build time
# (man/generate.cpp): do not edit; an option added to cordon reaches this file by itself.
_cordon() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local path="" word i offered=""
  COMPREPLY=()
  # The words before the cursor: subcommands make the path; an option's value is skipped;
  # after `--` come the command's own words.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if [[ $word == -- ]]; then
      if ((i == COMP_CWORD - 1)); then COMPREPLY=($(compgen -c -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
      return
    fi
    if [[ " $_cordon_valued " == *" $word "* ]]; then ((i++)); continue; fi
    [[ $word == -* ]] && continue
    if _cordon_offered "${path:+$path }$word" >/dev/null; then path="${path:+$path }$word"; fi
  done
  case $prev in
    --agent) COMPREPLY=($(compgen -W "$_cordon_agents" -- "$cur")); return ;;
    --network) COMPREPLY=($(compgen -W "$_cordon_network_modes" -- "$cur")); return ;;
    --limit) compopt -o nospace 2>/dev/null; COMPREPLY=($(compgen -W "$_cordon_limits" -S = -- "$cur")); return ;;
    --workspace) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --config|--binary) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [[ " $_cordon_valued " == *" $prev "* ]]; then return; fi
  if [[ $cur != -* ]]; then
    case $path in
      "sessions show")
        COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" sessions list 2>/dev/null | awk '$1 ~ /^[0-9]+T[0-9]+Z-/ {print $1}')" -- "$cur"))
        return ;;
      setup-user) COMPREPLY=($(compgen -u -- "$cur")); return ;;
    esac
  fi
  offered=$(_cordon_offered "$path")
  COMPREPLY=($(compgen -W "$offered" -- "$cur"))
}
)sh";

}  // namespace

CompletionValues completion_values() {
  CompletionValues values;
  for (const auto& [name, profile] : builtin_agent_profiles()) values.agents.push_back(name);
  for (NetworkMode mode : {NetworkMode::Host, NetworkMode::EgressJail, NetworkMode::Allowlist, NetworkMode::Offline})
    values.network_modes.emplace_back(network_mode_config_name(mode));
  for (const LimitKey& key : kLimitKeys) values.limits.emplace_back(key.name);
  return values;
}

std::string bash_completion_script(const std::vector<CliCommand>& catalog, const CompletionValues& values) {
  std::string out = kScriptHead;
  out += "# The options and subcommands of each command path; status 1 for a path that is none.\n";
  out += "_cordon_offered() {\n  local offered\n  case $1 in\n" + command_cases(catalog) +
         "    *) return 1 ;;\n  esac\n  printf '%s\\n' \"$offered\"\n}\n";
  out += "_cordon_valued=" + shell_quote(valued_options(catalog)) + "\n";
  out += "_cordon_agents=" + shell_quote(words(values.agents)) + "\n";
  out += "_cordon_network_modes=" + shell_quote(words(values.network_modes)) + "\n";
  out += "_cordon_limits=" + shell_quote(words(values.limits)) + "\n";
  return out + "complete -F _cordon cordon\n";
}

}  // namespace cordon
