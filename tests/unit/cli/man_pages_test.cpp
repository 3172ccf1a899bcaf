// The man pages the build writes (share/man in the build tree, what `cmake --install` copies)
// hold every option of every subcommand, every configuration key the parser accepts and every
// option of the helpers' --help, each taken from the binary, not from a copy; each check is
// shown to fail on a page with one entry removed. And groff renders each page without a warning.
#include "launcher/cli/man_pages.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <regex>

#include "common/text.h"
#include "launcher/cli/roff.h"
#include "launcher/inputs/config.h"
#include "launcher/process/subprocess.h"

namespace cordon {
namespace {

std::string built(const std::string& relative) { return read_text_file(std::string(CORDON_BUILD_DIR) + relative); }

// The part of `page` from the line `heading` to the next section or subsection heading.
std::string section_of(const std::string& page, const std::string& heading) {
  const size_t start = page.find("\n" + heading + "\n");
  if (start == std::string::npos) return "";
  size_t end = page.find("\n.S", start + heading.size() + 1);
  return page.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// "PATH OPTION" for every option of `catalog` that cordon(1) does not list under its command.
std::vector<std::string> cordon_page_omissions(const std::string& page, const std::vector<CliCommand>& catalog) {
  std::vector<std::string> missing;
  for (const CliCommand& command : catalog) {
    const std::string section = section_of(
        page, command.path.empty() ? ".SH OPTIONS" : ".SS \"cordon " + roff_escape(command.path) + "\"");
    if (section.empty()) missing.push_back(command.path + " (no section)");
    for (const CliOption& o : command.options)
      for (const std::string& name : o.names) {
        const std::string font = o.positional ? "\\fI" : "\\fB";
        if (section.find(font + roff_escape(name) + "\\fR") == std::string::npos)
          missing.push_back(command.path + " " + name);
      }
  }
  return missing;
}

// The keys of `keys` that cordon.toml(5) has no tagged paragraph for.
std::vector<std::string> config_page_omissions(const std::string& page, const std::vector<std::string>& keys) {
  std::vector<std::string> missing;
  for (const std::string& key : keys)
    if (page.find(".TP\n\\fB" + roff_escape(key) + "\\fR") == std::string::npos) missing.push_back(key);
  return missing;
}

// The long options a helper's --help lists.
std::vector<std::string> help_options(const std::string& help) {
  std::vector<std::string> options;
  std::regex option("(^|\\n) +(--[a-z][a-z-]*)|, (--[a-z][a-z-]*)");
  for (std::sregex_iterator it(help.begin(), help.end(), option), end; it != end; ++it)
    options.push_back((*it)[2].matched ? (*it)[2].str() : (*it)[3].str());
  return options;
}

// Whether a tagged paragraph's tag (the line after .TP) names `option` whole ("--only", not
// the start of "--only-these").
bool some_tag_names(const std::string& page, const std::string& option) {
  const std::string name = roff_escape(option);
  for (size_t tp = page.find(".TP\n"); tp != std::string::npos; tp = page.find(".TP\n", tp + 4)) {
    const std::string tag = page.substr(tp + 4, page.find('\n', tp + 4) - tp - 4);
    for (size_t at = tag.find(name); at != std::string::npos; at = tag.find(name, at + 1)) {
      const size_t after = at + name.size();
      if (after == tag.size() ||
          (!std::isalnum(static_cast<unsigned char>(tag[after])) && tag.compare(after, 2, "\\-") != 0))
        return true;
    }
  }
  return false;
}

std::vector<std::string> helper_page_omissions(const std::string& page, const std::vector<std::string>& options) {
  std::vector<std::string> missing;
  for (const std::string& option : options)
    if (!some_tag_names(page, option)) missing.push_back(option);
  return missing;
}

// `page` without the tagged paragraph whose tag line holds `tag`.
std::string without_entry(std::string page, const std::string& tag) {
  const size_t at = page.find(".TP\n" + tag);
  if (at == std::string::npos) return page;
  return page.erase(at, page.find("\n.", at + 4) + 1 - at);
}

TEST(ManPages, Cordon1ListsEveryOptionOfEveryCommand) {
  const std::string page = built("/share/man/man1/cordon.1");
  ASSERT_FALSE(page.empty());
  const std::vector<CliCommand> catalog = cli_catalog();
  ASSERT_GT(catalog.size(), 10u);
  EXPECT_EQ(cordon_page_omissions(page, catalog), std::vector<std::string>{});
  // The control: the same page without `sessions prune --keep-days`, and without a section.
  const std::string section = section_of(page, ".SS \"cordon sessions prune\"");
  std::string cut = page;
  cut.replace(page.find(section), section.size(), without_entry(section, "\\fB\\-\\-keep\\-days\\fR"));
  EXPECT_EQ(cordon_page_omissions(cut, catalog), std::vector<std::string>{"sessions prune --keep-days"});
  cut = page;
  cut.erase(page.find(section), section.size());
  EXPECT_NE(cordon_page_omissions(cut, catalog).front().find("sessions prune (no section)"), std::string::npos);
}

TEST(ManPages, CordonToml5ListsEveryConfigurationKey) {
  const std::string page = built("/share/man/man5/cordon.toml.5");
  const std::vector<std::string> keys = config_schema_keys();
  ASSERT_GT(keys.size(), 30u);
  EXPECT_EQ(config_page_omissions(page, keys), std::vector<std::string>{});
  // Each key's paragraph says its type and its default.
  EXPECT_NE(page.find(".TP\n\\fBrecords.keep_days\\fR\nType: integer \\[u2265] 0. Default: \\fB90\\fR.\n"),
            std::string::npos);
  const std::string cut = without_entry(page, "\\fBnetwork.dns_forward\\fR");
  EXPECT_EQ(config_page_omissions(cut, keys), std::vector<std::string>{"network.dns_forward"});
}

TEST(ManPages, EachHelperPageListsEveryOptionOfItsHelp) {
  for (const std::string helper : {"cordon-battery", "cordon-probe"}) {
    const CapturedRun help = run_capture({std::string(CORDON_BUILD_DIR) + "/libexec/cordon/" + helper, "--help"});
    ASSERT_EQ(help.exit_code, 0) << helper;
    const std::vector<std::string> options = help_options(help.output);
    EXPECT_GE(options.size(), 5u) << help.output;
    const std::string page = built("/share/man/man8/" + helper + ".8");
    EXPECT_EQ(helper_page_omissions(page, options), std::vector<std::string>{}) << helper;
    const std::string cut = without_entry(page, "\\fB\\-\\-list");
    EXPECT_EQ(helper_page_omissions(cut, options), std::vector<std::string>{"--list"}) << helper;
  }
}

// groff's own check: -ww turns on every warning, -z prints nothing of the page itself.
TEST(ManPages, GroffRendersEachWithoutAWarning) {
  if (::access("/usr/bin/groff", X_OK) != 0) GTEST_SKIP() << "no groff";
  for (const char* page : {"man1/cordon.1", "man5/cordon.toml.5", "man8/cordon-battery.8", "man8/cordon-probe.8"}) {
    const CapturedRun run = run_capture(
        {"/usr/bin/groff", "-ww", "-man", "-z", std::string(CORDON_BUILD_DIR) + "/share/man/" + page});
    EXPECT_EQ(run.exit_code, 0) << page;
    EXPECT_EQ(run.output, "") << page;
  }
}

TEST(ManPages, AHelpersHelpBecomesItsPage) {
  const std::string page = helper_man_page("tool", "does things",
                                           "usage: tool [--json] [--only N]\n"
                                           "  Does things.\n"
                                           "  --json        one JSON object\n"
                                           "  --only-these  a description one space away\n"
                                           "  --only N      these only, a description that goes\n"
                                           "                on\n"
                                           "\n"
                                           "Exit status: 0 fine.\n");
  EXPECT_NE(page.find(".SH SYNOPSIS\ntool [\\-\\-json] [\\-\\-only N]\n"), std::string::npos) << page;
  EXPECT_NE(page.find(".SH DESCRIPTION\n.PP\nDoes things.\n"), std::string::npos) << page;
  EXPECT_NE(page.find(".TP\n\\fB\\-\\-only N\\fR\nthese only, a description that goes\non\n"), std::string::npos)
      << page;
  EXPECT_NE(page.find(".SH \"EXIT STATUS\"\n.PP\nExit status: 0 fine.\n"), std::string::npos) << page;
}

TEST(ManPages, AReferenceTableBecomesTaggedParagraphs) {
  const std::string page = config_man_page(
      "# Title\n\nIntro `x`.\n\n## `[git]`\n\n| key | type | default | meaning |\n|---|---|---|---|\n"
      "| `git.name` | string | `\"\"` | `user.name` \\| more. |\n");
  EXPECT_NE(page.find(".SH DESCRIPTION\n.PP\nIntro \\fBx\\fR.\n.SS \"\\fB[git]\\fR\"\n"), std::string::npos) << page;
  EXPECT_NE(page.find(".TP\n\\fBgit.name\\fR\nType: string. Default: \\fB\"\"\\fR.\n.br\n\\fBuser.name\\fR | more.\n"),
            std::string::npos)
      << page;
}

}  // namespace
}  // namespace cordon
