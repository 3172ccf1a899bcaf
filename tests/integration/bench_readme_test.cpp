// README's benchmark figures are what bench/run.sh printed: the block quotes every line the
// bench prints, in its current format (its label, then a figure), and says when it ran. A
// renamed or added line in the bench without the README following fails here. The values
// themselves are not checked: tests never depend on timing.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>

#include "support.h"

namespace cordon::testing {
namespace {

std::string readme_bench_block() {
  const std::string readme = read_file(std::string(CORDON_SOURCE_DIR) + "/README.md");
  const std::string start = "<!-- bench/run.sh output -->";
  auto from = readme.find(start);
  if (from == std::string::npos) return "";
  auto open = readme.find("```\n", from);
  auto close = readme.find("```\n", open + 4);
  return open == std::string::npos || close == std::string::npos ? "" : readme.substr(from, close - from);
}

TEST(BenchReadme, QuotesEveryLineTheBenchPrintsInItsCurrentFormat) {
  RunResult labels = run({"/bin/bash", std::string(CORDON_SOURCE_DIR) + "/bench/run.sh", "--labels"}, RunOptions{});
  ASSERT_EQ(labels.exit_code, 0) << labels.err;
  const std::string block = readme_bench_block();
  ASSERT_FALSE(block.empty()) << "README.md has no \"<!-- bench/run.sh output -->\" block";
  EXPECT_TRUE(std::regex_search(block, std::regex("[Mm]easured (on )?20[0-9]{2}-[0-9]{2}-[0-9]{2}"))) << block;
  std::istringstream lines(labels.out);
  std::string label;
  int count = 0;
  while (std::getline(lines, label)) {
    ++count;
    // "LABEL: " then a figure (a number, possibly signed) or "skipped".
    const std::string escaped = std::regex_replace(label, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
    EXPECT_TRUE(std::regex_search(block, std::regex("\n" + escaped + R"(: ([+-]?[0-9]|skipped))")))
        << "README's bench block lacks the line \"" << label << ": ...\"\n" << block;
  }
  EXPECT_GE(count, 10) << labels.out;
}

}  // namespace
}  // namespace cordon::testing
