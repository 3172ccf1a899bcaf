// The bash completion the build writes (share/bash-completion/completions/cordon in the build
// tree), driven by bash itself as a shell does it (COMP_WORDS, COMP_CWORD, then _cordon): every
// option of every command in the command-line definition completes, and so do subcommands,
// agent profiles, network modes, limit names and session ids. A script with one option
// removed is the control that the check can fail.
#include "launcher/cli/bash_completion.h"

#include <gtest/gtest.h>

#include "common/text.h"
#include "launcher/process/subprocess.h"

namespace cordon {
namespace {

// One completion: the words before the cursor (the cursor is on the last) and a reply expected.
struct Expectation {
  std::vector<std::string> words;
  std::string reply;
};

std::vector<std::string> path_words(const std::string& path) {
  std::vector<std::string> words = {"cordon"};
  for (size_t at = 0; !path.empty() && at <= path.size();) {
    size_t end = path.find(' ', at);
    if (end == std::string::npos) end = path.size();
    words.push_back(path.substr(at, end - at));
    at = end + 1;
  }
  return words;
}

// Every option and subcommand of every command, typed but for its last character.
std::vector<Expectation> every_option_and_subcommand(const std::vector<CliCommand>& catalog) {
  std::vector<Expectation> expected;
  for (const CliCommand& command : catalog) {
    std::vector<std::string> names = command.subcommands;
    for (const CliOption& o : command.options)
      if (!o.positional) names.insert(names.end(), o.names.begin(), o.names.end());
    for (const std::string& name : names) {
      std::vector<std::string> words = path_words(command.path);
      words.push_back(name.substr(0, name.size() - 1));
      expected.push_back({words, name});
    }
  }
  return expected;
}

// The expectations `script` does not meet, one "REPLY <- WORDS" each, as bash reports them.
std::vector<std::string> misses(const std::string& script, const std::vector<Expectation>& expected) {
  std::string program = script +
                        "expect() { local reply=$1 r; shift; COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _cordon\n"
                        "  for r in \"${COMPREPLY[@]}\"; do [[ $r == \"$reply\" ]] && return; done\n"
                        "  echo \"$reply <- ${COMP_WORDS[*]}\"; }\n";
  for (const Expectation& e : expected) {
    program += "expect " + shell_quote(e.reply);
    for (const auto& w : e.words) program += " " + shell_quote(w);
    program += "\n";
  }
  const CapturedRun run = run_capture({"/bin/bash", "--norc", "-c", program});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  std::vector<std::string> lines;
  for (size_t at = 0; at < run.output.size();) {
    const size_t end = run.output.find('\n', at);
    lines.push_back(run.output.substr(at, end - at));
    at = end == std::string::npos ? run.output.size() : end + 1;
  }
  return lines;
}

std::string built_script() {
  return read_text_file(std::string(CORDON_BUILD_DIR) + "/share/bash-completion/completions/cordon");
}

TEST(BashCompletion, EveryOptionOfEveryCommandCompletes) {
  const std::string script = built_script();
  ASSERT_FALSE(script.empty());
  const std::vector<Expectation> expected = every_option_and_subcommand(cli_catalog());
  ASSERT_GT(expected.size(), 40u);
  EXPECT_EQ(misses(script, expected), std::vector<std::string>{});
  // The control: the same script without `sessions prune --keep-days`.
  std::string cut = script;
  const size_t prune = cut.find("'sessions prune') offered='");
  ASSERT_NE(prune, std::string::npos) << script;
  const size_t option = cut.find(" --keep-days", prune);
  ASSERT_NE(option, std::string::npos);
  cut.erase(option, std::string(" --keep-days").size());
  EXPECT_EQ(misses(cut, expected), std::vector<std::string>{"--keep-days <- cordon sessions prune --keep-day"});
}

TEST(BashCompletion, ValuesComplete) {
  // A stand-in cordon for `sessions list`, as the completion calls the cordon being completed.
  const std::string stub = "/tmp/cordon-completion-stub-" + std::to_string(::getpid());
  const std::string list = "printf 'SESSION STARTED\\n20261130T145458Z-11b80906 x\\n20261201T000000Z-00000001 y\\n'";
  const std::string script = built_script() + "cat > " + stub + " <<'EOF'\n#!/bin/sh\n" + list + "\nEOF\nchmod +x " +
                             stub + "\ntrap 'rm -f " + stub + "' EXIT\n";
  const std::vector<Expectation> expected = {
      {{"cordon", "run", "--agent", "cl"}, "claude"},
      {{"cordon", "--config", "/x.toml", "run", "--agent", "co"}, "codex"},  // a value is not a subcommand
      {{"cordon", "verify", "--network", "off"}, "offline"},
      {{"cordon", "argv", "--network", "a"}, "allowlist"},
      {{"cordon", "run", "--limit", "pids"}, "pids_max="},
      {{"cordon", "run", "--", "ba"}, "bash"},
      {{stub, "sessions", "show", "20261130"}, "20261130T145458Z-11b80906"},
      {{stub, "sessions", "show", ""}, "20261201T000000Z-00000001"},
      {{"cordon", "setup-user", "roo"}, "root"},
  };
  EXPECT_EQ(misses(script, expected), std::vector<std::string>{});
  // The control: a reply that must not come.
  EXPECT_EQ(misses(script, {{{"cordon", "run", "--network", "off"}, "bogus"}}),
            std::vector<std::string>{"bogus <- cordon run --network off"});
}

TEST(BashCompletion, TheValuesAreCordonsOwn) {
  const CompletionValues values = completion_values();
  EXPECT_EQ(values.network_modes, (std::vector<std::string>{"host", "jail", "allowlist", "offline"}));
  for (const char* agent : {"claude", "codex", "gemini", "generic"})
    EXPECT_NE(std::find(values.agents.begin(), values.agents.end(), agent), values.agents.end()) << agent;
  EXPECT_NE(std::find(values.limits.begin(), values.limits.end(), "wall_clock_seconds"), values.limits.end());
}

}  // namespace
}  // namespace cordon
