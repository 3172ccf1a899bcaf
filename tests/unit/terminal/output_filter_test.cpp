#include "launcher/terminal/output_filter.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace cordon {
namespace {

// A hex escape takes every hex digit after it, so a byte followed by one (ESC 7, ESC c) is
// written in octal: "\0337" is ESC then '7', "\23331m" is 0x9b then "31m".
using namespace std::string_literals;
using C = TerminalClass;

struct Filtered {
  std::string out;
  std::array<uint64_t, kTerminalClassCount> dropped{};
  uint32_t modes = 0;
};

Filtered run(std::string_view input, TerminalPassSet passed = default_terminal_pass_set()) {
  OutputFilter filter(passed);
  Filtered result;
  filter.feed(input, result.out);
  filter.finish(result.out);
  result.dropped = filter.dropped();
  result.modes = filter.modes();
  return result;
}

std::string filtered(std::string_view input, TerminalPassSet passed = default_terminal_pass_set()) {
  return run(input, passed).out;
}

uint64_t total(const std::array<uint64_t, kTerminalClassCount>& dropped) {
  uint64_t sum = 0;
  for (uint64_t n : dropped) sum += n;
  return sum;
}

uint64_t count(const Filtered& f, C c) { return f.dropped[static_cast<size_t>(c)]; }

TerminalPassSet none() { return TerminalPassSet{}; }

TerminalPassSet only(C c) {
  TerminalPassSet set;
  set.add(c);
  return set;
}

TerminalPassSet all_but(C c) {
  TerminalPassSet set;
  for (size_t i = 0; i + 1 < kTerminalClassCount; ++i)
    if (static_cast<C>(i) != c) set.add(static_cast<C>(i));
  return set;
}

TerminalPassSet all_passable() { return all_but(C::kUnknown); }

// One sequence of each class (kStatus passes by default, the rest is dropped).
struct Classified {
  std::string input;
  C c;
};

const std::vector<Classified>& classified() {
  static const std::vector<Classified> cases = {
      {"\x1b]0;title\a", C::kTitle},
      {"\x1b]2;title\x1b\\", C::kTitle},
      {"\x1b]1;icon\a", C::kTitle},
      {"\x1b[22;0t", C::kTitle},
      {"\x1b[23t", C::kTitle},
      {"\x1b[>3t", C::kTitle},
      {"\x1b[>1T", C::kTitle},
      {"\x1b]8;;https://example.com/\x1b\\", C::kHyperlink},
      {"\x1b]52;c;aGVsbG8=\a", C::kClipboard},
      {"\x1b]52;c;?\a", C::kClipboard},
      {"\x1b]4;1;rgb:ff/00/00\a", C::kPalette},
      {"\x1b]104\a", C::kPalette},
      {"\x1b]11;#000000\x1b\\", C::kPalette},
      {"\x1b]112\a", C::kPalette},
      {"\x1b]9;done\a", C::kNotify},
      {"\x1b]99;;done\a", C::kNotify},
      {"\x1b]777;notify;a;b\a", C::kNotify},
      {"\x1b[6n", C::kStatus},
      {"\x1b[5n", C::kStatus},
      {"\x1b[c", C::kStatus},
      {"\x1b[0c", C::kStatus},
      {"\x1b[>c", C::kStatus},
      {"\x1b[>0q", C::kStatus},
      {"\x1b[=c", C::kStatus},
      {"\x1b[?6n", C::kStatus},
      {"\x1b[?2004$p", C::kStatus},
      {"\x1b[4$p", C::kStatus},
      {"\x1bZ", C::kStatus},
      {"\x1b[21t", C::kQuery},
      {"\x1b[20t", C::kQuery},
      {"\x1b[14t", C::kQuery},
      {"\x1b[18t", C::kQuery},
      {"\x1b]11;?\a", C::kQuery},
      {"\x1b]4;1;?\x1b\\", C::kQuery},
      {"\x1b]10;?\a", C::kQuery},
      {"\x1b[8;100;200t", C::kWindow},
      {"\x1b[3;0;0t", C::kWindow},
      {"\x1b[1t", C::kWindow},
      {"\x1b[9;1t", C::kWindow},
      {"\x1b[10;1t", C::kWindow},
      {"\x1b[24t", C::kWindow},
      {"\x1b[>4;2m", C::kKeyboard},
      {"\x1b[>4n", C::kKeyboard},
      {"\x1b[>1u", C::kKeyboard},
      {"\x1b[<u", C::kKeyboard},
      {"\x1b[=1;1u", C::kKeyboard},
      {"\x1b[?u", C::kKeyboard},
      {"\x1b[?1036h", C::kKeyboard},
      {"\x1b[?1034l", C::kKeyboard},
  };
  return cases;
}

// Sequences of no passable class: dropped whatever the pass set says.
const std::vector<std::string>& unknown_sequences() {
  static const std::vector<std::string> cases = {
      "\x1b]7;file://host/tmp\a",
      "\x1b]1337;SetUserVar=a=b\a",
      "\x1b]133;A\a",
      "\x1b]50;font\a",
      "\x1b];x\a",
      "\x1b]L;label\a",
      "\x1bP1$qm\x1b\\",
      "\x1bP+q544e\x1b\\",
      "\x1b_Gf=100;AAAA\x1b\\",
      "\x1b^private\x1b\\",
      "\x1bXstring\x1b\\",
      "\x1b[?3h",
      "\x1b[?1001h",
      "\x1b[?2031h",
      "\x1b[?80l",
      "\x1b[2h",
      "\x1b[12l",
      "\x1b[61;1\"p",
      "\x1b[5u",
      "\x1b[3n",
      "\x1b[1c",
      "\x1b[0t",
      "\x1b[12t",
      "\x1b[?5W",
      "\x1b[>5x",
      "\x1b[80$|",
      "\x1b[1:2H",
      "\x1b[1?H",
      "\x1b[1 2H",
      "\x1b%@",
      "\x1b%G",
      "\x1b F",
      "\x1b G",
      "\x1bn",
      "\x1bo",
      "\x1b|",
      "\x1b}",
      "\x1b~",
      "\x1b\\",
      "\x1bl",
      "\x1bm",
      "\x1bN",
      "\x1b(%5",
      "\x1b#1",
      "\x05",
      "\x7f",
      "\xc2\x9b",
  };
  return cases;
}

TEST(OutputFilter, PassesPlainTextAndUtf8) {
  const std::string text = "hello, world\r\n\tcaf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0 \xf4\x8f\xbf\xbf";
  Filtered f = run(text);
  EXPECT_EQ(f.out, text);
  EXPECT_EQ(total(f.dropped), 0U);
  EXPECT_EQ(f.modes, 0U);
}

TEST(OutputFilter, PassesTheCursorC0Controls) {
  EXPECT_EQ(filtered("a\a\b\t\n\v\f\rb"), "a\a\b\t\n\v\f\rb");
  Filtered f = run("\016abc\x0f");
  EXPECT_EQ(f.out, "\016abc\x0f");
  EXPECT_EQ(f.modes, 0U);
}

TEST(OutputFilter, DropsTheOtherC0ControlsAndDel) {
  Filtered f = run("a\0\x01\x05\x11\x12\x13\x14\x18\x1a\x1c\x1f\177b"s);
  EXPECT_EQ(f.out, "ab");
  EXPECT_EQ(count(f, C::kUnknown), 12U);
  EXPECT_EQ(total(f.dropped), 12U);
}

TEST(OutputFilter, DropsEnq) {
  Filtered f = run("a\005b");
  EXPECT_EQ(f.out, "ab");
  EXPECT_EQ(count(f, C::kUnknown), 1U);
}

TEST(OutputFilter, ReplacesInvalidUtf8PerMaximalSubpart) {
  const std::string r = "\xef\xbf\xbd";
  EXPECT_EQ(filtered("a\377b"), "a" + r + "b");
  EXPECT_EQ(filtered("\23331m"),
            r + "31m");                                    // a raw C1 byte
  EXPECT_EQ(filtered("\xc0\xaf"), r + r);                  // overlong '/'
  EXPECT_EQ(filtered("\xe0\x80\x80"), r + r + r);          // overlong NUL
  EXPECT_EQ(filtered("\xed\xa0\x80"), r + r + r);          // a surrogate
  EXPECT_EQ(filtered("\xf4\x90\x80\x80"), r + r + r + r);  // above U+10FFFF
  EXPECT_EQ(filtered("\xe2\202A"),
            r + "A");  // one truncated character
  EXPECT_EQ(filtered("\xf0\x9f\x98\xe2\x82\xac"), r + "\xe2\x82\xac");
  EXPECT_EQ(filtered("\xc3\x1b[1m"), r + "\x1b[1m");
  EXPECT_EQ(total(run("\xff\xc0").dropped), 0U);
}

TEST(OutputFilter, DropsUtf8EncodedC1Controls) {
  Filtered f = run("a\xc2\23331mb\xc2\205c\xc2\x80\xc2\x9f");
  EXPECT_EQ(f.out, "a31mbc");
  EXPECT_EQ(count(f, C::kUnknown), 4U);
  EXPECT_EQ(filtered("\xc2\xa0"), "\xc2\xa0");
}

TEST(OutputFilter, HoldsASplitCharacterUntilItIsComplete) {
  OutputFilter filter(default_terminal_pass_set());
  std::string out;
  filter.feed("x\xf0\x9f", out);
  EXPECT_EQ(out, "x");
  EXPECT_EQ(filter.held_bytes(), 2U);
  filter.feed("\x98", out);
  EXPECT_EQ(out, "x");
  EXPECT_EQ(filter.held_bytes(), 3U);
  filter.feed("\x80y", out);
  EXPECT_EQ(out, "x\xf0\x9f\x98\x80y");
  EXPECT_EQ(filter.held_bytes(), 0U);
}

TEST(OutputFilter, PassesDrawingSequences) {
  for (const char* seq : {"\x1b[31m",
                          "\x1b[1;4;38;5;196;48;2;0;0;0m",
                          "\x1b[38:2::255:0:0m",
                          "\x1b[4:3m",
                          "\x1b[m",
                          "\x1b[H",
                          "\x1b[10;20H",
                          "\x1b[2J",
                          "\x1b[K",
                          "\x1b[3A",
                          "\x1b[B",
                          "\x1b[C",
                          "\x1b[D",
                          "\x1b[5G",
                          "\x1b[2;5f",
                          "\x1b[3@",
                          "\x1b[2P",
                          "\x1b[4L",
                          "\x1b[4M",
                          "\x1b[2X",
                          "\x1b[S",
                          "\x1b[T",
                          "\x1b[Z",
                          "\x1b[I",
                          "\x1b[3b",
                          "\x1b[5d",
                          "\x1b[`",
                          "\x1b[a",
                          "\x1b[e",
                          "\x1b[3g",
                          "\x1b[s",
                          "\x1b[u",
                          "\x1b[?J",
                          "\x1b[?1K",
                          "\x1b[2 q",
                          "\x1b[1\"q",
                          "\x1b[!p",
                          "\0337",
                          "\0338",
                          "\033D",
                          "\033E",
                          "\x1bH",
                          "\x1bM",
                          "\033c",
                          "\x1b=",
                          "\x1b>",
                          "\x1b(0",
                          "\x1b)B",
                          "\x1b*A",
                          "\x1b+<",
                          "\x1b#8",
                          "\x1b#3",
                          "\x1b#6"}) {
    Filtered f = run(seq);
    EXPECT_EQ(f.out, seq) << testing::PrintToString(seq);
    EXPECT_EQ(total(f.dropped), 0U) << testing::PrintToString(seq);
  }
}

TEST(OutputFilter, DropsEveryClassByDefaultButStatusAndKeyboard) {
  for (const Classified& k : classified()) {
    Filtered f = run("<" + k.input + ">");
    SCOPED_TRACE(testing::PrintToString(k.input));
    if (k.c == C::kStatus || k.c == C::kKeyboard) {
      EXPECT_EQ(f.out, "<" + k.input + ">");
      EXPECT_EQ(total(f.dropped), 0U);
    } else {
      EXPECT_EQ(f.out, "<>");
      EXPECT_EQ(count(f, k.c), 1U);
      EXPECT_EQ(total(f.dropped), 1U);
    }
  }
}

TEST(OutputFilter, EachClassPassesWhenItsBitIsSet) {
  for (const Classified& k : classified()) {
    SCOPED_TRACE(testing::PrintToString(k.input));
    Filtered passed = run(k.input, only(k.c));
    EXPECT_EQ(passed.out, k.input);
    EXPECT_EQ(total(passed.dropped), 0U);
    Filtered others = run(k.input, all_but(k.c));
    EXPECT_EQ(others.out, "");
    EXPECT_EQ(count(others, k.c), 1U);
  }
}

TEST(OutputFilter, UnknownNeverPasses) {
  TerminalPassSet everything;
  everything.bits = ~0U;
  for (const std::string& seq : unknown_sequences()) {
    SCOPED_TRACE(testing::PrintToString(seq));
    Filtered f = run("<" + seq + ">", everything);
    EXPECT_EQ(f.out, "<>");
    EXPECT_EQ(count(f, C::kUnknown), 1U);
    EXPECT_EQ(total(f.dropped), 1U);
  }
}

TEST(OutputFilter, DropsDecidWithoutStatus) {
  Filtered f = run("\x1bZ", none());
  EXPECT_EQ(f.out, "");
  EXPECT_EQ(count(f, C::kStatus), 1U);
}

TEST(OutputFilter, DropsTheUtf8ModeSwitch) {
  // ESC % @ would leave UTF-8 mode, making the raw C1 byte after it a live CSI.
  Filtered f = run("\x1b%@\2332t", all_passable());
  EXPECT_EQ(f.out, "\xef\xbf\2752t");
  EXPECT_EQ(count(f, C::kUnknown), 1U);
}

TEST(OutputFilter, RebuildsDecsetWithTheAllowedParameters) {
  Filtered f = run("\x1b[?1049;3h");
  EXPECT_EQ(f.out, "\x1b[?1049h");
  EXPECT_EQ(count(f, C::kUnknown), 1U);
  EXPECT_EQ(f.modes, kModeAltScreen);

  f = run("\x1b[?3;1001;2031h");
  EXPECT_EQ(f.out, "");
  EXPECT_EQ(count(f, C::kUnknown), 3U);

  f = run("\x1b[?1;1036;25;5l", all_but(C::kKeyboard));
  EXPECT_EQ(f.out, "\x1b[?1;25;5l");
  EXPECT_EQ(count(f, C::kKeyboard), 1U);
  EXPECT_EQ(f.modes, kModeCursorHidden);
  EXPECT_EQ(filtered("\x1b[?1;1036;25;5l", only(C::kKeyboard)), "\x1b[?1;1036;25;5l");

  f = run("\x1b[4;2;20h");
  EXPECT_EQ(f.out, "\x1b[4h");
  EXPECT_EQ(count(f, C::kUnknown), 2U);  // KAM and LNM
  EXPECT_EQ(f.modes, kModeInsert);

  EXPECT_EQ(filtered("\x1b[?;25l"), "\x1b[?25l");
  EXPECT_EQ(filtered("\x1b[?0025l"), "\x1b[?0025l");
  EXPECT_EQ(filtered("\x1b[?h"), "");
  EXPECT_EQ(filtered("\x1b[?4294967321h"), "");  // 25 modulo 2^32
}

TEST(OutputFilter, TracksTheModesLetThrough) {
  OutputFilter filter(default_terminal_pass_set());
  std::string out;
  filter.feed("\x1b[?1049h\x1b[?25l\x1b[1;31m\x1b[?1000;1006h\x1b[?2004h\x1b=\x1b[?1004h", out);
  EXPECT_EQ(filter.modes(), kModeAltScreen | kModeCursorHidden | kModeAttributes | kModeMouse | kModeBracketedPaste |
                                kModeAppKeypad | kModeFocus);
  filter.feed("\x1b[?1006l", out);  // tracking (1000) is still on
  EXPECT_NE(filter.modes() & kModeMouse, 0U);
  filter.feed("\x1b[?1000l\x1b[0m\x1b>\x1b[?25h\x1b[?2004l\x1b[?1004l", out);
  EXPECT_EQ(filter.modes(), kModeAltScreen);
  filter.feed("\x1b[2;20r\x1b[5 q\x1b(0\x1b[?7l\x1b[4h", out);
  EXPECT_EQ(filter.modes(),
            kModeAltScreen | kModeScrollRegion | kModeCursorStyle | kModeCharset | kModeNoAutowrap | kModeInsert);
  filter.feed("\x1b[r\x1b[0 q\x1b(B\x1b[?7h\x1b[4l\x1b[?1049l", out);
  EXPECT_EQ(filter.modes(), 0U);
  filter.feed("\x0e", out);
  EXPECT_EQ(filter.modes(), kModeCharset);
  filter.feed("\x0f\x1b[7m\x1b[?5;6;1;66;1007;2026h", out);
  EXPECT_EQ(filter.modes(), kModeAttributes | kModeReverseVideo | kModeOrigin | kModeAppCursorKeys | kModeAppKeypad |
                                kModeAltScroll | kModeSyncOutput);
  filter.feed("\033c",
              out);  // RIS
  EXPECT_EQ(filter.modes(), 0U);
}

TEST(OutputFilter, SharedModesStayOnUntilEverySourceIsOff) {
  EXPECT_EQ(run("\x1b[?1049h\x1b[?47l").modes, kModeAltScreen);
  EXPECT_EQ(run("\x1b[2;10r\x1b[?69h\x1b[r").modes, kModeScrollRegion);
  EXPECT_EQ(run("\x1b)0\x0e\x0f").modes, kModeCharset);
  EXPECT_EQ(run("\x1b)0\x0e\x1b)B\x0f").modes, 0U);
  EXPECT_EQ(run("\x1b[?9;1000;1002;1003;1005;1006;1015;1016h\x1b[?1000l").modes, kModeMouse);
}

TEST(OutputFilter, ACursorRestoreBringsBackSavedModes) {
  EXPECT_EQ(run("\x1b[31m\0337\x1b[0m").modes, 0U);
  EXPECT_EQ(run("\x1b[31m\0337\x1b[0m\0338").modes, kModeAttributes);
  EXPECT_EQ(run("\x1b(0\x1b[s\x1b(B\x1b[u").modes, kModeCharset);
  EXPECT_EQ(run("\x1b[?6h\x1b[?1049h\x1b[?6l\x1b[?1049l").modes, kModeOrigin);
}

TEST(OutputFilter, DroppedSequencesChangeNoMode) {
  EXPECT_EQ(run("\x1b[?1049\x18h").modes, 0U);                       // aborted
  EXPECT_EQ(run("\x1b[1;2\x1b[m").modes, 0U);                        // abandoned
  EXPECT_EQ(run("\x1b[" + std::string(5000, '1') + "m").modes, 0U);  // too long
  EXPECT_EQ(run("\x1b[?1049").modes, 0U);                            // never finished
  EXPECT_EQ(run("\x1b[?3;1001h").modes, 0U);
}

TEST(OutputFilter, DecstrPassesAndKeepsTheModes) {
  Filtered f = run("\x1b[?1000h\x1b[1m\x1b[!p");
  EXPECT_EQ(f.out, "\x1b[?1000h\x1b[1m\x1b[!p");
  EXPECT_EQ(f.modes, kModeMouse | kModeAttributes);
}

TEST(OutputFilter, ResetSequenceUndoesExactlyTheGivenModes) {
  EXPECT_EQ(terminal_reset_sequence(0), "");
  EXPECT_EQ(terminal_reset_sequence(kModeAttributes), "\x1b[0m");
  EXPECT_EQ(terminal_reset_sequence(kModeCursorHidden), "\x1b[?25h");
  EXPECT_EQ(terminal_reset_sequence(kModeMouse),
            "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1016l\x1b[?9l");
  EXPECT_EQ(terminal_reset_sequence(kModeAppKeypad | kModeCharset), "\x1b>\x1b[?66l\x1b(B\x0f");
  // The margins' reset keeps the cursor where it was (DECSC, DECSTBM, DECRC): vim leaves
  // CSI 1;ROWS r set, and a bare CSI r after it drew the next prompt at the top left.
  EXPECT_EQ(terminal_reset_sequence(kModeScrollRegion | kModeNoAutowrap), "\x1b[?7h\x1b" "7\x1b[r\x1b" "8\x1b[?69l");
  EXPECT_EQ(terminal_reset_sequence(kModeAltScreen | kModeOrigin | kModeCursorHidden | kModeAttributes),
            "\x1b[?25h\x1b[?6l\x1b[?1049l\x1b[0m");
  const std::string all = terminal_reset_sequence(kAllTerminalModes);
  for (const char* part :
       {"\x1b[?1004l", "\x1b[?2004l", "\x1b[?1l", "\x1b[?2026l", "\x1b[?5l", "\x1b[4l", "\x1b[0 q", "\x1b[?1007l"})
    EXPECT_NE(all.find(part), std::string::npos) << testing::PrintToString(part);
  EXPECT_LT(all.find("\x1b[r"), all.find("\x1b[?1049l"));
}

TEST(OutputFilter, TheResetSequenceClearsWhatWasTracked) {
  OutputFilter filter(default_terminal_pass_set());
  std::string out;
  filter.feed(
      "\x1b[?1049h\x1b[?25l\x1b[1m\x1b[?1003;1016h\x1b[?1004;2004;1;66;2026;5;6;7;1007h\x1b[?7l\x1b[3;9r\x1b[4h"
      "\x1b(0\x0e\x1b[3 q\x1b[>1u",
      out);
  EXPECT_EQ(filter.modes(), kAllTerminalModes);
  filter.feed(terminal_reset_sequence(filter.modes()), out);
  EXPECT_EQ(filter.modes(), 0U);
}

// Passed by default, the keyboard protocols are tracked so that the session's end undoes them:
// a kitty push until as many pops, flags set until reset, modifyOtherKeys until turned off.
TEST(OutputFilter, TracksTheKeyboardProtocolsItPasses) {
  EXPECT_EQ(run("\x1b[>1u").modes, kModeKeyboard);
  EXPECT_EQ(run("\x1b[>1u\x1b[>3u\x1b[<u").modes, kModeKeyboard);
  EXPECT_EQ(run("\x1b[>1u\x1b[>3u\x1b[<2u").modes, 0U);
  EXPECT_EQ(run("\x1b[=5;1u").modes, kModeKeyboard);
  EXPECT_EQ(run("\x1b[=5;1u\x1b[=0;1u").modes, 0U);
  EXPECT_EQ(run("\x1b[>4;2m").modes, kModeKeyboard);
  EXPECT_EQ(run("\x1b[>4;2m\x1b[>4m").modes, 0U);
  EXPECT_EQ(run("\x1b[>4;2m\x1b[>4n").modes, 0U);
  EXPECT_EQ(run("\x1b[?u").modes, 0U);  // a query changes nothing
  EXPECT_EQ(terminal_reset_sequence(kModeKeyboard), "\x1b[<99u\x1b[>4m\x1b[<99u");
  // Both screens' stacks: one emptied before the alternate screen's exit, one after.
  EXPECT_EQ(terminal_reset_sequence(kModeKeyboard | kModeAltScreen), "\x1b[<99u\x1b[>4m\x1b[?1049l\x1b[<99u");
  // Dropped (not passed), nothing is tracked.
  EXPECT_EQ(run("\x1b[>1u", all_but(C::kKeyboard)).modes, 0U);
}

TEST(OutputFilter, DropsATitleReportAsAQuery) {
  Filtered f = run("\x1b[21t", all_but(C::kQuery));
  EXPECT_EQ(f.out, "");
  EXPECT_EQ(count(f, C::kQuery), 1U);
  EXPECT_EQ(total(f.dropped), 1U);
}

TEST(OutputFilter, AColourQueryIsAQueryNotAPaletteChange) {
  Filtered f = run("\x1b]11;?\a", only(C::kPalette));
  EXPECT_EQ(f.out, "");
  EXPECT_EQ(count(f, C::kQuery), 1U);
  EXPECT_EQ(filtered("\x1b]11;?\a", only(C::kQuery)), "\x1b]11;?\a");
  EXPECT_EQ(filtered("\x1b]4;1;#ff0000;2;?\a", only(C::kPalette)), "");
  EXPECT_EQ(filtered("\x1b]4;1;?x\a", only(C::kPalette)), "\x1b]4;1;?x\a");
}

TEST(OutputFilter, DropsAClipboardWrite) {
  Filtered f = run("a\x1b]52;c;" + std::string(100000, 'A') + "\x1b\\b");
  EXPECT_EQ(f.out, "ab");
  EXPECT_EQ(count(f, C::kClipboard), 1U);
  EXPECT_EQ(total(f.dropped), 1U);
}

TEST(OutputFilter, PassesAnOscWithItsOwnTerminator) {
  EXPECT_EQ(filtered("\x1b]0;caf\xc3\xa9\a", only(C::kTitle)), "\x1b]0;caf\xc3\xa9\a");
  EXPECT_EQ(filtered("\x1b]0;x\x1b\\", only(C::kTitle)), "\x1b]0;x\x1b\\");
  EXPECT_EQ(filtered("\x1b]000;x\a", only(C::kTitle)), "\x1b]000;x\a");
  EXPECT_EQ(filtered("\x1b]8;id=1;https://x/\x1b\\link\x1b]8;;\x1b\\", only(C::kHyperlink)),
            "\x1b]8;id=1;https://x/\x1b\\link\x1b]8;;\x1b\\");
}

TEST(OutputFilter, DropsAPassedOscWhoseTextCouldEndItEarly) {
  for (const char* seq : {"\x1b]0;a\xc2\234b\a", "\x1b]0;a\234b\a", "\x1b]0;a\x7f\a", "\x1b]0;\xe2\x82\a"}) {
    Filtered f = run(seq, only(C::kTitle));
    EXPECT_EQ(f.out, "") << testing::PrintToString(seq);
    EXPECT_EQ(count(f, C::kUnknown), 1U) << testing::PrintToString(seq);
  }
}

TEST(OutputFilter, AnUnterminatedOscIsNotHeldBeyondTheCap) {
  for (TerminalPassSet passed : {default_terminal_pass_set(), only(C::kTitle)}) {
    OutputFilter filter(passed);
    std::string out;
    filter.feed("\x1b]0;", out);
    const std::string chunk(size_t{64} * 1024, 'x');
    for (int i = 0; i < 16; ++i) {
      filter.feed(chunk, out);
      EXPECT_LE(filter.held_bytes(), kMaxHeldBytes);
    }
    EXPECT_EQ(out, "");
    filter.feed("\aafter", out);
    EXPECT_EQ(out, "after");
    EXPECT_EQ(filter.dropped()[static_cast<size_t>(C::kTitle)], 1U);
    EXPECT_EQ(total(filter.dropped()), 1U);
  }
}

TEST(OutputFilter, AnOscAtTheCapPassesAndOneByteMoreIsDropped) {
  const std::string longest = "\x1b]0;" + std::string(kMaxHeldBytes - 4, 't');
  EXPECT_EQ(filtered(longest + "\a", only(C::kTitle)), longest + "\a");
  Filtered f = run(longest + "t\a", only(C::kTitle));
  EXPECT_EQ(f.out, "");
  EXPECT_EQ(count(f, C::kTitle), 1U);
}

TEST(OutputFilter, ATenMegabyteDcsIsDiscardedWithoutGrowth) {
  OutputFilter filter(all_passable());
  std::string out;
  filter.feed("\x1bPq", out);
  // Sixel-like data with the bytes that end other strings (BEL, LF, a raw 8-bit ST), but no ESC.
  std::string payload;
  while (payload.size() < size_t{1024} * 1024) payload += "#0;2;0;0;0~~@@vv\a\n[31m!\x9c";
  for (int i = 0; i < 10; ++i) {
    filter.feed(payload, out);
    EXPECT_EQ(filter.held_bytes(), 0U);
  }
  EXPECT_EQ(out, "");
  filter.feed("\x1b\\ok", out);
  EXPECT_EQ(out, "ok");
  EXPECT_EQ(filter.dropped()[static_cast<size_t>(C::kUnknown)], 1U);
  EXPECT_EQ(total(filter.dropped()), 1U);
}

TEST(OutputFilter, CanAndSubAbortASequence) {
  Filtered f = run("\x1b[31\x18mX");
  EXPECT_EQ(f.out, "mX");
  EXPECT_EQ(count(f, C::kUnknown), 1U);
  f = run(
      "\x1b]0;title\x1a"
      "x",
      only(C::kTitle));
  EXPECT_EQ(f.out, "x");
  EXPECT_EQ(count(f, C::kTitle), 1U);
  f = run(
      "\x1b]0\x18"
      "x",
      only(C::kTitle));
  EXPECT_EQ(f.out, "x");
  EXPECT_EQ(count(f, C::kUnknown), 1U);
  f = run("\x1bPdata\x18ok");
  EXPECT_EQ(f.out, "ok");
  EXPECT_EQ(count(f, C::kUnknown), 1U);
  EXPECT_EQ(filtered("\x1b(\032B"), "B");
  EXPECT_EQ(filtered("\x1b\030c"), "c");
}

TEST(OutputFilter, AnEscAbandonsTheSequenceBeingRead) {
  Filtered f = run("\x1b[12\x1b[31m");
  EXPECT_EQ(f.out, "\x1b[31m");
  EXPECT_EQ(count(f, C::kUnknown), 1U);
  f = run("\x1b]0;t\x1b[1m", only(C::kTitle));
  EXPECT_EQ(f.out, "\x1b[1m");
  EXPECT_EQ(count(f, C::kTitle), 1U);
  f = run("\x1bPq\x1b[1mx");
  EXPECT_EQ(f.out, "\x1b[1mx");
  EXPECT_EQ(count(f, C::kUnknown), 1U);
  f = run("\x1b\x1b[A");
  EXPECT_EQ(f.out, "\x1b[A");
  EXPECT_EQ(count(f, C::kUnknown), 1U);
}

TEST(OutputFilter, AControlInsideASequenceDropsItAndIsReadAgain) {
  Filtered f = run("\x1b[3\n1m");
  EXPECT_EQ(f.out, "\n1m");
  EXPECT_EQ(count(f, C::kUnknown), 1U);
  EXPECT_EQ(filtered("\x1b[3\xc3\xa9m"), "\xc3\xa9m");
  EXPECT_EQ(filtered("\x1b\n"), "\n");
  EXPECT_EQ(filtered("\x1b]0;ab\ncd\a", only(C::kTitle)), "\ncd\a");
}

TEST(OutputFilter, ALongSequenceIsDroppedAndNeverHeldWhole) {
  OutputFilter filter(all_passable());
  std::string out;
  filter.feed("\x1b[", out);
  for (int i = 0; i < 100; ++i) {
    filter.feed(std::string(1000, '1'), out);
    EXPECT_LE(filter.held_bytes(), kMaxHeldBytes);
  }
  filter.feed("mX\x1b", out);
  for (int i = 0; i < 100; ++i) filter.feed(std::string(1000, ' '), out);
  EXPECT_LE(filter.held_bytes(), 2U);
  filter.feed("FY", out);
  EXPECT_EQ(out, "XY");
  EXPECT_EQ(filter.dropped()[static_cast<size_t>(C::kUnknown)], 2U);
  EXPECT_EQ(filter.modes(), 0U);
}

TEST(OutputFilter, ACsiAtTheCapPassesAndOneByteMoreIsDropped) {
  const std::string longest = "\x1b[" + std::string(kMaxHeldBytes - 3, '1') + "m";
  Filtered f = run(longest);
  EXPECT_EQ(f.out, longest);
  EXPECT_EQ(f.modes, kModeAttributes);
  f = run("\x1b[1" + longest.substr(2));
  EXPECT_EQ(f.out, "");
  EXPECT_EQ(count(f, C::kUnknown), 1U);
}

TEST(OutputFilter, FinishDropsAHeldPartialSequence) {
  OutputFilter filter(default_terminal_pass_set());
  std::string out;
  filter.feed("ab\x1b[3", out);
  EXPECT_EQ(out, "ab");
  EXPECT_EQ(filter.held_bytes(), 3U);
  filter.finish(out);
  EXPECT_EQ(out, "ab");
  EXPECT_EQ(filter.held_bytes(), 0U);
  EXPECT_EQ(filter.dropped()[static_cast<size_t>(C::kUnknown)], 1U);
  filter.feed("1m\xe2\x82", out);
  EXPECT_EQ(out, "ab1m");
  filter.finish(out);
  EXPECT_EQ(out, "ab1m");
  EXPECT_EQ(filter.dropped()[static_cast<size_t>(C::kUnknown)], 2U);
  filter.finish(out);  // nothing held: nothing counted
  EXPECT_EQ(filter.dropped()[static_cast<size_t>(C::kUnknown)], 2U);
}

// Hostile and ordinary inputs for the properties below.
std::vector<std::string> corpus() {
  std::vector<std::string> inputs = {
      "plain text\r\n",
      "caf\xc3\xa9 \xe2\x82\xac\xf0\x9f\x98\x80\xc2\xa0",
      "\x1b[1;31mred\x1b[0m \x1b[38:2::1:2:3mx\x1b[m",
      "\x1b[?1049;3h\x1b[?25l\x1b[H\x1b[2J\x1b[?1000;1006h",
      "\x1b]0;title\aafter\x1b]2;t\x1b\\x",
      "\x1b]52;c;aGVsbG8=\x1b\\y\x1b]52;c;?\a",
      "\x1b]11;?\x1b\\\x1b]4;1;rgb:1/2/3\a\x1b]8;;https://x\x1b\\l\x1b]8;;\x1b\\",
      "\x1bP1$qm\x1b\\z\x1b_G\x1b\\\x1b^p\x1b\\\x1bXs\x1b\\",
      "\xc2\23331m\2332t\x1b%@\2332t\x1b%G",
      "\xc0\xaf\xe0\x80\x80\xed\xa0\x80\xf4\x90\x80\x80\xe2\202A\xff\xfe",
      "\x1b[12\x18m\x1b]0;x\x1a\x1bPab\030c\x05\x7f\0"s,
      "\x1b\x1b[A\x1b[1\x1b]0;t\x1b[m\x1b]0;t\n\x1b[3\xc3\xa9",
      "\x1b[21t\x1b[14t\x1b[8;1;1t\x1b[22t\x1b[6n\x1b[c\x1b[>c\x1b[>4;1m\x1b[>1u\x1b[<u",
      "\0337\0338\033D\033c\x1b=\x1b>\x1b(0\x0e\x0f\x1b(B\x1b#8\x1b F\x1bn\x1bZ",
      "\x1b[?1036;1;2004h\x1b[4;2h\x1b[2;20r\x1b[r\x1b[5 q\x1b[!p\x1b[61\"p\x1b[?2026$p",
      "\x1b[?u\x1b[=1u\x1b[?J\x1b[s\x1b[u\x1b[5u\x1b]9;n\a\x1b]777;a\a\x1b]1337;x\a",
      "\x1b]0;" + std::string(kMaxHeldBytes, 'a') + "\a\x1b[" + std::string(kMaxHeldBytes, '1') + "mend",
      "\x1b]4;1;" + std::string(kMaxHeldBytes, '?') + "\a\x1b]0;a\xc2\x9c\a\x1b]0\a",
      "\x1b[" + std::string(kMaxHeldBytes - 3, '1') + "m<\x1b[" + std::string(kMaxHeldBytes - 2, '1') + "m>",
      "\x1b]0;tail",
      "\x1b[?10",
      "\xf0\x9f\x98",
      "\x1bP" + std::string(10000, 'q'),
  };
  std::mt19937 random(12345);
  const std::string alphabet = "\x1b[]P\\;?0123456789hlmtq$ \"!\a\x18\x1a\n\x05\xc2\x9b\xe2\x82\xac\xf0\x9f\xff"s;
  for (int i = 0; i < 40; ++i) {
    std::string bytes;
    for (int j = 0; j < 200; ++j) bytes.push_back(alphabet[random() % alphabet.size()]);
    inputs.push_back(bytes);
  }
  return inputs;
}

// Where to split an input in two: everywhere in a short one; in a long one (runs of one byte
// past kMaxHeldBytes) near every change of byte and near the cap after every ESC, where a
// split can matter, since a split inside a run of one byte is like any other in it.
std::vector<size_t> split_points(const std::string& input) {
  if (input.size() <= 512) {
    std::vector<size_t> all;
    for (size_t at = 1; at < input.size(); ++at) all.push_back(at);
    return all;
  }
  std::vector<bool> near(input.size() + 1, false);
  const auto mark = [&](size_t centre) {
    for (size_t at = centre > 8 ? centre - 8 : 1; at <= centre + 8 && at < input.size(); ++at) near[at] = true;
  };
  for (size_t at = 1; at < input.size(); ++at) {
    if (input[at] != input[at - 1]) mark(at);
    if (input[at - 1] == '\x1b') mark(at - 1 + kMaxHeldBytes);
  }
  std::vector<size_t> points;
  for (size_t at = 1; at < input.size(); ++at)
    if (near[at]) points.push_back(at);
  return points;
}

bool same(const OutputFilter& a, const OutputFilter& b) { return a.dropped() == b.dropped() && a.modes() == b.modes(); }

TEST(OutputFilter, SplittingTheInputAnywhereChangesNothing) {
  for (TerminalPassSet passed : {default_terminal_pass_set(), all_passable()}) {
    for (const std::string& input : corpus()) {
      SCOPED_TRACE(testing::PrintToString(input));
      OutputFilter whole(passed);
      std::string expected;
      whole.feed(input, expected);
      whole.finish(expected);

      OutputFilter bytes(passed);
      std::string one_by_one;
      for (char ch : input) bytes.feed(std::string_view(&ch, 1), one_by_one);
      bytes.finish(one_by_one);
      EXPECT_EQ(one_by_one, expected);
      EXPECT_TRUE(same(bytes, whole));

      for (size_t at : split_points(input)) {
        OutputFilter split(passed);
        std::string out;
        split.feed(std::string_view(input).substr(0, at), out);
        split.feed(std::string_view(input).substr(at), out);
        split.finish(out);
        ASSERT_EQ(out, expected) << "split at " << at;
        ASSERT_TRUE(same(split, whole)) << "split at " << at;
      }
    }
  }
}

// What the filter emits is well-formed: valid UTF-8 without C1 controls, ESC only in
// sequences that pass again unchanged.
TEST(OutputFilter, FilteringTwiceChangesNothing) {
  for (TerminalPassSet passed : {default_terminal_pass_set(), all_passable()}) {
    for (const std::string& input : corpus()) {
      SCOPED_TRACE(testing::PrintToString(input));
      const std::string once = filtered(input, passed);
      Filtered twice = run(once, passed);
      EXPECT_EQ(twice.out, once);
      EXPECT_EQ(total(twice.dropped), 0U);
      EXPECT_EQ(once.find("\xc2\x9b"), std::string::npos);
      EXPECT_EQ(once.find('\x05'), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace cordon
