// Text in a man page prints as written: roff's own characters escaped, markdown's marks as fonts.
#include "launcher/cli/roff.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

TEST(Roff, EscapesWhatRoffWouldInterpret) {
  EXPECT_EQ(roff_escape("--keep-days"), "\\-\\-keep\\-days");
  EXPECT_EQ(roff_escape("a\\b"), "a\\eb");
  // A line starting with '.' or '\'' would be a request.
  EXPECT_EQ(roff_escape(".hidden\n'quoted"), "\\&.hidden\n\\&'quoted");
  EXPECT_EQ(roff_escape("it's .fine"), "it's .fine");
  EXPECT_EQ(roff_escape("\xE2\x89\xA5 1"), "\\[u2265] 1");  // "≥ 1"
  EXPECT_EQ(roff_escape("bad \xff byte"), "bad ? byte");
}

TEST(Roff, MarkdownMarksBecomeFonts) {
  EXPECT_EQ(roff_from_markdown("`network.mode` is **read-only**"), "\\fBnetwork.mode\\fR is \\fBread\\-only\\fR");
  EXPECT_EQ(roff_from_markdown("see [network.md](network.md#cost)"), "see network.md");
  EXPECT_EQ(roff_from_markdown("a lone ` stays"), "a lone ` stays");
  EXPECT_EQ(roff_from_markdown("`x` \xE2\x89\xA5 1"), "\\fBx\\fR \\[u2265] 1");  // a character of several bytes
}

TEST(Roff, ParagraphsAndTitles) {
  EXPECT_EQ(roff_paragraph("  one\ntwo  "), "one two\n");
  EXPECT_EQ(roff_title("cordon.toml", 5, "File Formats").rfind(".TH CORDON.TOML 5 \"\" \"cordon ", 0), 0u);
}

}  // namespace
}  // namespace cordon
