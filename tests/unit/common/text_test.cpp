#include <gtest/gtest.h>

#include "common/text.h"

namespace cordon {
namespace {

TEST(ShellQuote, SafeWordsPassUnquoted) {
  EXPECT_EQ(shell_quote("ls"), "ls");
  EXPECT_EQ(shell_quote("/usr/bin/env"), "/usr/bin/env");
  EXPECT_EQ(shell_quote("a=b,c:d@e%f+g.h-i_j"), "a=b,c:d@e%f+g.h-i_j");
}

TEST(ShellQuote, HostileStringsAreOneInertWord) {
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("two words"), "'two words'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("'"), "''\\'''");
  EXPECT_EQ(shell_quote("$(rm -rf /)"), "'$(rm -rf /)'");
  EXPECT_EQ(shell_quote("`id`"), "'`id`'");
  EXPECT_EQ(shell_quote("a;b&c|d"), "'a;b&c|d'");
  EXPECT_EQ(shell_quote("line\nbreak"), "'line\nbreak'");
  EXPECT_EQ(shell_quote("*?[x]~"), "'*?[x]~'");
  EXPECT_EQ(shell_quote("\\"), "'\\'");
  EXPECT_EQ(shell_quote(std::string("nul\0byte", 8)), std::string("'nul\0byte'", 10));
}

TEST(ShellJoin, QuotesEachWord) {
  EXPECT_EQ(shell_join({}), "");
  EXPECT_EQ(shell_join({"echo", "a b", "", "it's"}), "echo 'a b' '' 'it'\\''s'");
}

TEST(Trim, StripsWhitespaceAtBothEnds) {
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \t\r\n"), "");
  EXPECT_EQ(trim("max\n"), "max");
  EXPECT_EQ(trim("  key = value \r"), "key = value");
  EXPECT_EQ(trim("a b"), "a b");
  EXPECT_EQ(trim("\v\fx\f\v"), "x");
}

TEST(ReadFile, MissingFileReportsErrno) {
  int err = 0;
  EXPECT_FALSE(read_file("/nonexistent/cordon-test", 16, &err));
  EXPECT_EQ(err, ENOENT);
  EXPECT_EQ(read_text_file("/nonexistent/cordon-test"), "");
}

TEST(ReadFile, BoundedByLimit) {
  auto head = read_file("/proc/self/status", 4);
  ASSERT_TRUE(head);
  EXPECT_EQ(*head, "Name");
  EXPECT_NE(read_text_file("/proc/self/status").find("Pid:"), std::string::npos);
}

}  // namespace
}  // namespace cordon
