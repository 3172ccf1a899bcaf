// cordon's exit statuses, per subcommand: the one table. `cordon --help` prints all of it,
// each subcommand's --help its own rows, and README.md "## Exit codes" repeats it word for
// word (tests/unit/cli/exit_table_test.cpp holds the two equal). The numbers are
// common/error.h's.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cordon {

struct ExitGroup {
  std::string label;                                      // the README's first column, e.g. "cordon verify [--deep]"
  std::vector<std::string> subcommands;                   // whose --help shows these rows: "verify"
  std::vector<std::pair<std::string, std::string>> rows;  // status ("0", "128+N", "126, 127"), meaning
};

const std::vector<ExitGroup>& exit_table();

// "Exit status:" and every group's rows, for `cordon --help`.
std::string exit_table_text();

// "Exit status:" and the rows of the group `subcommand` belongs to, for its --help.
std::string exit_rows_text(const std::string& subcommand);

}  // namespace cordon
