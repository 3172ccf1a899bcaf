// The exit table is one: `cordon --help` prints it from cli/exit_table.h, and README.md's
// "Exit codes" says the same, row for row (its backticks aside).
#include "launcher/cli/exit_table.h"

#include <gtest/gtest.h>

#include <sstream>

#include "common/error.h"
#include "common/text.h"

namespace cordon {
namespace {

std::string without_backticks(std::string text) {
  std::erase(text, '`');
  return text;
}

// README.md's table under "## Exit codes": one {command, status, meaning} per row.
std::vector<std::vector<std::string>> readme_rows() {
  const std::string readme = read_text_file(std::string(CORDON_SOURCE_DIR) + "/README.md");
  const size_t section = readme.find("\n## Exit codes\n");
  std::vector<std::vector<std::string>> rows;
  if (section == std::string::npos) return rows;
  std::istringstream lines(readme.substr(section + 1));
  std::string line;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (line.rfind("|", 0) != 0) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    if (line.rfind("| command", 0) == 0 || line.rfind("|---", 0) == 0) continue;
    std::vector<std::string> cells;
    for (size_t at = 1; at < line.size();) {
      const size_t end = line.find(" |", at);
      if (end == std::string::npos) break;
      std::string cell = line.substr(at, end - at);
      cells.push_back(without_backticks(cell.empty() || cell[0] != ' ' ? cell : cell.substr(1)));
      at = end + 2;
    }
    rows.push_back(cells);
  }
  return rows;
}

TEST(ExitTable, TheReadmeRepeatsItRowForRow) {
  std::vector<std::vector<std::string>> expected;
  for (const auto& group : exit_table())
    for (size_t i = 0; i < group.rows.size(); ++i)
      expected.push_back({i == 0 ? group.label : "", group.rows[i].first, group.rows[i].second});
  const auto readme = readme_rows();
  ASSERT_EQ(readme.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(readme[i], expected[i]) << "row " << i;
}

TEST(ExitTable, HelpPrintsEveryGroupAndRow) {
  const std::string text = exit_table_text();
  EXPECT_EQ(text.rfind("Exit status:\n", 0), 0u) << text;
  for (const auto& group : exit_table()) {
    EXPECT_NE(text.find("\n  " + group.label + "\n"), std::string::npos) << group.label;
    for (const auto& [status, meaning] : group.rows) {
      EXPECT_NE(text.find("\n    " + status + " "), std::string::npos) << group.label << " " << status;
      EXPECT_NE(text.find(meaning.substr(0, 40)), std::string::npos) << meaning;
    }
  }
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
}

TEST(ExitTable, EachSubcommandGetsItsGroupsRows) {
  const std::string verify = exit_rows_text("verify");
  EXPECT_EQ(verify.rfind("Exit status:\n  0         every check PASS", 0), 0u) << verify;
  EXPECT_NE(verify.find("\n  " + std::to_string(kExitInconclusive) + "         nothing FAILed"), std::string::npos)
      << verify;
  EXPECT_NE(exit_rows_text("run").find("\n  " + std::to_string(kExitLaunchRefused) + "       cordon failed before"),
            std::string::npos);
  for (const char* name : {"status", "argv", "shim", "sessions"})
    EXPECT_NE(exit_rows_text(name).find("any other failure"), std::string::npos) << name;
  EXPECT_EQ(exit_rows_text("frobnicate"), "");
}

// A long meaning wraps under its own column, never under the status.
TEST(ExitTable, LongMeaningsWrapUnderTheirColumn) {
  const std::string run = exit_rows_text("run");
  EXPECT_NE(run.find("\n            "), std::string::npos) << run;  // 2 + 10 columns
  std::istringstream lines(run);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
}

}  // namespace
}  // namespace cordon
