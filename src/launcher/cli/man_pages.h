// The man pages, written from what the binary itself uses, so they cannot drift from it:
// cordon(1) from the command-line definition (cli/cli_catalog.h) and the exit table,
// cordon.toml(5) from docs/configuration.md (whose keys a unit test holds equal to the
// parser's), cordon-battery(8) and cordon-probe(8) from the helper's own --help text.
// man/generate.cpp writes them at build time; CMake installs them to share/man.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "launcher/cli/cli_catalog.h"

namespace cordon {

// cordon(1): the synopsis, cordon's own options, a section (.SS) per subcommand with its
// options (.TP) and exit statuses, the whole exit table, files, see also.
std::string cordon_man_page(const std::vector<CliCommand>& catalog);

// cordon.toml(5) from the configuration reference (markdown): its paragraphs, a section per
// table heading, a tagged paragraph per table row (a key's row: type, default, meaning).
std::string config_man_page(std::string_view reference_markdown);

// A helper's page in section 8 from its --help text: "usage:" becomes the synopsis, each
// "  --option  description" line (and its indented continuation) a tagged paragraph, any
// other line the description.
std::string helper_man_page(const std::string& name, const std::string& summary, std::string_view help_text);

}  // namespace cordon
