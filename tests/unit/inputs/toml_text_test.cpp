// What toml++ 3.3.0 is never given: invalid UTF-8, and the non-ASCII characters its
// whitespace test has undefined behaviour on (see toml_text.h), wherever it would test them.
#include "launcher/inputs/toml_text.h"

#include <gtest/gtest.h>

#include <string>

namespace cordon {
namespace {

std::string where(const std::string& text) {
  auto p = toml_text_problem(text);
  return p ? std::to_string(p->line) + ":" + std::to_string(p->column) + ": " + p->what : "";
}

TEST(TomlText, InvalidUtf8IsNamedAtItsFirstByte) {
  EXPECT_EQ(where("\xEF").rfind("1:1: invalid UTF-8 (byte 0xef)", 0), 0u) << where("\xEF");
  EXPECT_EQ(where("\xEF\xBB[a]\n").rfind("1:1: invalid UTF-8 (byte 0xef)", 0), 0u);
  EXPECT_EQ(where("a = 1\r\nb = \"\xC3\xA9\xFF\"").rfind("2:7: invalid UTF-8 (byte 0xff)", 0), 0u)
      << where("a = 1\r\nb = \"\xC3\xA9\xFF\"");
  EXPECT_EQ(where("# \xC0\x80").rfind("1:3: invalid UTF-8 (byte 0xc0)", 0), 0u);
}

// U+FEC0 (EF BB 80: a byte order mark's first two bytes and a continuation byte) and most
// code points of U+00A1..U+0499, U+2C6E..U+3067 reach `unreachable` in toml++'s whitespace
// test; outside strings and comments TOML allows no non-ASCII character at all.
TEST(TomlText, NonAsciiOutsideStringsAndCommentsIsRefused) {
  EXPECT_EQ(where("\xEF\xBB\x80"), "1:1: U+FEC0 outside a string or a comment (TOML allows only ASCII there)");
  EXPECT_EQ(where("\xEF\xBB\xBF\xC3\xA9").rfind("1:1: U+00E9 outside", 0), 0u);  // after a whole BOM
  EXPECT_EQ(where("a = \xC3\xA9").rfind("1:5: U+00E9 outside", 0), 0u);
  EXPECT_EQ(where("[a]\n\xC2\xA1 = 1").rfind("2:1: U+00A1 outside", 0), 0u);
  EXPECT_EQ(where("a.\xC3\xA9 = 1").rfind("1:3: U+00E9 outside", 0), 0u);
  EXPECT_EQ(where("a = [1,\xE2\xBA\x80]").rfind("1:8: U+2E80 outside", 0), 0u);
  EXPECT_EQ(where("a = \"x\" \xE3\x80\x80").rfind("1:9: U+3000 outside", 0), 0u);
}

// toml++ reads a value that starts with a digit or a sign up to a space, ',', ']', '}' or '#',
// quotes included: a string glued to it is read as part of it.
TEST(TomlText, NonAsciiInAStringGluedToAValueIsRefused) {
  for (const char* text : {"a = 1\"\xC3\xA9\"", "a = 1979-05-27\"\xC3\xA9\"", "a = 1979-05-27 \"\xC3\xA9\"",
                           "a = +[\"10.\xE3\x80\x81\"]", "a = [1\"\xC3\xA9\"]", "a = {b=1'\xC3\xA9'}",
                           "a = \"x\"\"\xC3\xA9\"", "a = 0x\"\xC3\xA9\"", "a.\"b\"\"\xC3\xA9\" = 1"})
    EXPECT_NE(where(text).find("in a string that follows a value without a separator"), std::string::npos)
        << text << ": " << where(text);
}

TEST(TomlText, AfterABackslashInAMultiLineBasicString) {
  EXPECT_NE(where("a = \"\"\"x\\\xC3\xA9\"\"\"").find("U+00E9 right after a backslash"), std::string::npos);
  EXPECT_EQ(where("a = \"\"\"x\\\n   \xC3\xA9\"\"\"").rfind("2:4: U+00E9 right after a line-ending backslash", 0), 0u)
      << where("a = \"\"\"x\\\n   \xC3\xA9\"\"\"");
  EXPECT_NE(where("a = \"\"\"x\\  \r\n\n\t\xC2\xA1\"\"\"").find("U+00A1 right after a line-ending backslash"),
            std::string::npos);
  // The workaround the message names.
  EXPECT_EQ(where("a = \"\"\"x\\\n   \\u00e9\"\"\""), "");
}

// Whatever TOML allows elsewhere passes: non-ASCII in strings (keys and values, every kind)
// and comments, a whole byte order mark, escapes, quotes inside multi-line strings.
TEST(TomlText, ValidFilesPass) {
  for (const char* text : {
           "",
           "\xEF\xBB\xBF[network]\nmode = \"host\"\n",
           "[git]\nname = \"Ren\xC3\xA9\xF0\x9F\x99\x82\" # caf\xC3\xA9 \xEF\xBB\x80\n",
           "a = 'lit\xC3\xA9ral'\nb = '''multi\n\xC3\xA9'''\nc = \"\"\"x\xC3\xA9\ny\"\"\"\n",
           "\"\xC3\xA9\" = 1\n'\xC3\xA9'.\"\xE3\x80\x81\" = 2\n[a.\"\xC3\xA9\".'b']\n[[t.\"\xEF\xBB\x80\"]]\n",
           "[9.\"\xC3\xA9\"]\nx = {a = 1, 9.\"\xC3\xA9\" = 2}\n",
           "a = [1, \"\xC3\xA9\", 1979-05-27 07:32:00, -2, +3.5e2, '\xC3\xA9', [\"\xC3\xA9\"], {b = \"\xC3\xA9\"}]\n",
           "a = [\n  1, # \xC3\xA9\n  \"\xC3\xA9\",\n]\n",
           "a = \"esc \\\" \\\\ \xC3\xA9\"\nb = \"\"\"q \"\" \xC3\xA9 \\\"\"\" \xC3\xA9\"\"\"\"\"\nc = "
           "'''x''\xC3\xA9'''''\n",
           "a = \"\"\"x\\\n   y\xC3\xA9\"\"\"\n",
       })
    EXPECT_EQ(where(text), "") << text;
}

std::string for_parser(const std::string& text) {
  ScannedToml scanned = scan_toml_text(text);
  EXPECT_FALSE(scanned.problem) << text;
  return scanned.for_parser;
}

// toml++ is given a comment that stands on a line of its own as its '#' and its line break:
// it reads comments a character at a time. No other line or column moves.
TEST(TomlText, WholeLineCommentsReachTheParserWithoutTheirBodies) {
  EXPECT_EQ(for_parser("# a\n  # b c\r\n\t# caf\xC3\xA9\n[x]\ny = 1\n"), "#\n  #\r\n\t#\n[x]\ny = 1\n");
  EXPECT_EQ(for_parser("a = [\n  # in an array\n  1,\n]\n"), "a = [\n  #\n  1,\n]\n");
  EXPECT_EQ(for_parser("\xEF\xBB\xBF# after a byte order mark\nx = 1\n"), "\xEF\xBB\xBF#\nx = 1\n");
}

// Kept whole: a comment after something else on its line, one that ends the text (toml++
// places the end of the text after its last character), one with a control character toml++
// refuses (its error stays where it was), and what only looks like a comment inside a string.
TEST(TomlText, OtherCommentsReachTheParserWhole) {
  for (const char* text :
       {"x = 1 # after a value\n", "x = 1\n# the last line\n", "x = 1\n# no line break", "# a \x01 control\nx = 1\n",
        "# a lone \r here\nx = 1\n", "# DEL \x7f\nx = 1\n", "x = \"\"\"\n# in a string\n\"\"\"\n",
        "x = '''\n# in a string\n'''\n", "x = \"\"\"a\\\n# not a comment\"\"\"\n"})
    EXPECT_EQ(for_parser(text), text) << text;
}

}  // namespace
}  // namespace cordon
