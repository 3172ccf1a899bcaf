// The printer every message of cordon's goes through (common/print.h).
#include "common/print.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cordon {
namespace {

TEST(Printable, KeepsLinesAndTabsAndEscapesEveryOtherControl) {
  EXPECT_EQ(printable("plain caf\xc3\xa9\tand\nlines\n"), "plain caf\xc3\xa9\tand\nlines\n");
  EXPECT_EQ(printable("title \x1b]0;pwned\x07 done\n"), "title \\x1b]0;pwned\\x07 done\n");
  EXPECT_EQ(printable("clip \x1b]52;c;cHduZWQ=\x07"), "clip \\x1b]52;c;cHduZWQ=\\x07");
  EXPECT_EQ(printable("a\rb\x7f"), "a\\x0db\\x7f");
  EXPECT_EQ(printable("\xc2\x9b" "31m \x9b" "31m"), "\\xc2\\x9b31m \\x9b31m");  // C1 CSI, as UTF-8 and raw
  EXPECT_EQ(printable("\xff \xc0\xaf \xed\xa0\x80"), "\\xff \\xc0\\xaf \\xed\\xa0\\x80");
  EXPECT_EQ(printable(std::string("nul\0byte", 8)), "nul\\x00byte");
}

TEST(Printable, IsIdempotent) {
  const std::string once = printable("\x1b[2J\n\xff\t\xc2\x9b");
  EXPECT_EQ(printable(once), once);
}

TEST(PrintableShellCommand, PlainWordsAreShellQuoted) {
  EXPECT_EQ(printable_shell_command({"/usr/bin/bwrap", "--bind", "/a b", "it's", ""}),
            "/usr/bin/bwrap --bind '/a b' 'it'\\''s' ''");
  EXPECT_EQ(printable_shell_command({"caf\xc3\xa9"}), "'caf\xc3\xa9'");
}

TEST(PrintableShellCommand, ControlsAndInvalidUtf8UseAnsiCQuoting) {
  EXPECT_EQ(printable_shell_command({"/ws/\x1b]0;t\x07"}), "$'/ws/\\x1b]0;t\\x07'");
  EXPECT_EQ(printable_shell_command({"a\nb", "tab\there"}), "$'a\\x0ab' $'tab\\x09here'");
  EXPECT_EQ(printable_shell_command({"it's\r\\"}), "$'it\\'s\\x0d\\\\'");
  EXPECT_EQ(printable_shell_command({"\xff\xc2\x9b\xc3\xa9"}), "$'\\xff\\xc2\\x9b\xc3\xa9'");
  // Printable as it is: the printer leaves it unchanged.
  const std::string line = printable_shell_command({"x\x1b[2J", "\xc0\xaf"});
  EXPECT_EQ(printable(line), line);
}

TEST(Highlighted, ColoursOnlyLeadingTagsAfterEscapingTheRest) {
  const std::vector<Highlight> colours{{"[PASS]", "32"}, {"[FAIL]", "1;31"}};
  EXPECT_EQ(highlighted("  [PASS] 01 ok\n  [FAIL] 02 \x1b[32mfake [PASS]\nno tag\n", colours),
            "  \x1b[32m[PASS]\x1b[0m 01 ok\n  \x1b[1;31m[FAIL]\x1b[0m 02 \\x1b[32mfake [PASS]\nno tag\n");
  EXPECT_EQ(highlighted("[FAIL] last", colours), "\x1b[1;31m[FAIL]\x1b[0m last");
}

}  // namespace
}  // namespace cordon
