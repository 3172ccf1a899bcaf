// The private terminal's output filter (launcher/terminal/output_filter.h), with an oracle
// that reads the filter's output independently. The first input byte picks the pass set
// (even: the default, [terminal] pass unset; odd: the classes of the second byte), the third
// seeds the chunk sizes the rest is fed in.
//   - under the default set, nothing but text, drawing and status sequences survives: no OSC
//     (clipboard, title, palette, hyperlink, notification), no DCS, SOS, PM or APC string, no
//     C1 control (raw or UTF-8 encoded), no C0 control other than BEL..CR, SO and SI, no
//     window, title-stack, report or keyboard-mode CSI, no switch to 8-bit controls; whatever
//     the set, the never-passed ones (kUnknown) stay out, and a passed OSC is one of a passed
//     class carrying clean text;
//   - the output is valid UTF-8 and every escape sequence in it is whole;
//   - the filter never holds more than kMaxHeldBytes, holds nothing after finish(), and reads
//     the stream the same whatever the chunks: the same output, counts and modes as one feed.
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/terminal_classes.h"
#include "fuzz_common.h"
#include "launcher/terminal/output_filter.h"

namespace {
constexpr std::string_view kFuzzTarget = "terminal_filter";
using cordon::TerminalClass;
using cordon::TerminalPassSet;

constexpr unsigned char kEsc = 0x1b;

struct Oracle {
  TerminalPassSet passed;
  std::string_view out;

  [[noreturn]] void fail(const std::string& what, size_t at) const {
    const size_t from = at > 40 ? at - 40 : 0;
    cordon::fuzz::violated(kFuzzTarget, what + " at output byte " + std::to_string(at) + ": ..." +
                                            cordon::fuzz::escaped(out.substr(from, 120)));
  }
  bool passes(TerminalClass c) const { return c != TerminalClass::kUnknown && passed.passes(c); }
  unsigned char at(size_t i) const { return static_cast<unsigned char>(out[i]); }

  // A valid UTF-8 character at i that is not a C1 control; its length.
  size_t utf8(size_t i) const {
    const unsigned char b = at(i);
    size_t length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    if (b < 0xc2 || b > 0xf4) fail("a byte that does not begin a UTF-8 character", i);
    if (i + length > out.size()) fail("a cut UTF-8 character", i);
    for (size_t k = 1; k < length; ++k)
      if ((at(i + k) & 0xc0) != 0x80) fail("invalid UTF-8", i);
    const unsigned char c1 = at(i + 1);
    if (b == 0xc2 && c1 < 0xa0) fail("a UTF-8 encoded C1 control", i);
    if ((b == 0xe0 && c1 < 0xa0) || (b == 0xf0 && c1 < 0x90)) fail("an overlong UTF-8 form", i);
    if ((b == 0xed && c1 > 0x9f) || (b == 0xf4 && c1 > 0x8f)) fail("a surrogate or a code point past U+10FFFF", i);
    return length;
  }

  static bool has_param(std::string_view params, std::string_view value) {
    size_t start = 0;
    while (start <= params.size()) {
      size_t semi = params.find(';', start);
      if (semi == std::string_view::npos) semi = params.size();
      if (params.substr(start, semi - start) == value) return true;
      start = semi + 1;
    }
    return false;
  }

  size_t csi(size_t i) const {  // i: the ESC of ESC [
    size_t k = i + 2;
    const size_t params_at = k;
    while (k < out.size() && at(k) >= 0x30 && at(k) <= 0x3f) ++k;
    std::string_view params = out.substr(params_at, k - params_at);
    const size_t inter_at = k;
    while (k < out.size() && at(k) >= 0x20 && at(k) <= 0x2f) ++k;
    const std::string_view intermediates = out.substr(inter_at, k - inter_at);
    if (k >= out.size() || at(k) < 0x40 || at(k) > 0x7e) fail("a CSI without its final byte", i);
    const char final = out[k];
    char marker = 0;
    if (!params.empty() && params[0] >= '<' && params[0] <= '?') {
      marker = params[0];
      params.remove_prefix(1);
    }
    if (final == 't' && !passes(TerminalClass::kWindow) && !passes(TerminalClass::kTitle) &&
        !passes(TerminalClass::kQuery))
      fail("a window, title-stack or report CSI t", i);
    if (final == 'T' && marker == '>' && !passes(TerminalClass::kTitle)) fail("a title-mode CSI > T", i);
    const bool keyboard = (marker != 0 && final == 'u') || (marker == '>' && (final == 'm' || final == 'n')) ||
                          (marker == '?' && (final == 'h' || final == 'l') &&
                           (has_param(params, "1034") || has_param(params, "1036") || has_param(params, "1039")));
    if (keyboard && !passes(TerminalClass::kKeyboard)) fail("a keyboard-mode CSI", i);
    if (marker == '?' && final == 'n' && params == "996" && !passes(TerminalClass::kQuery)) fail("CSI ?996n", i);
    if (intermediates == "\"" && final == 'p') fail("DECSCL (can switch to 8-bit controls)", i);
    return k + 1 - i;
  }

  // ESC ] Ps ; text (BEL | ESC \): only of a passed class, with clean text.
  size_t osc(size_t i) const {
    size_t k = i + 2;
    size_t number = 0;
    bool digits = false;
    while (k < out.size() && out[k] >= '0' && out[k] <= '9' && number < 100000) {
      number = number * 10 + static_cast<size_t>(out[k] - '0');
      digits = true;
      ++k;
    }
    TerminalClass c = TerminalClass::kUnknown;
    if (digits) {
      if (number <= 2) c = TerminalClass::kTitle;
      else if (number == 8) c = TerminalClass::kHyperlink;
      else if (number == 52) c = TerminalClass::kClipboard;
      else if (number == 4 || number == 5 || (number >= 10 && number <= 19) || (number >= 104 && number <= 119))
        c = TerminalClass::kPalette;
      else if (number == 9 || number == 99 || number == 777) c = TerminalClass::kNotify;
    }
    if (!passes(c) && !(c != TerminalClass::kUnknown && passes(TerminalClass::kQuery)))
      fail("an OSC of a class not passed (number " + std::to_string(number) + ")", i);
    while (k < out.size()) {
      const unsigned char b = at(k);
      if (b == 0x07) return k + 1 - i;
      if (b == kEsc) {
        if (k + 1 < out.size() && out[k + 1] == '\\') return k + 2 - i;
        fail("an ESC inside an OSC", k);
      }
      if (b >= 0x20 && b < 0x7f) ++k;
      else if (b >= 0x80) k += utf8(k);
      else fail("a control byte inside an OSC", k);
    }
    fail("an OSC without its terminator", i);
  }

  size_t escape(size_t i) const {
    if (i + 1 >= out.size()) fail("a lone ESC at the end", i);
    const char next = out[i + 1];
    switch (next) {
      case '[': return csi(i);
      case ']': return osc(i);
      case 'P': fail("a DCS string", i);
      case 'X': fail("a SOS string", i);
      case '^': fail("a PM string", i);
      case '_': fail("an APC string", i);
      case '7':
      case '8':
      case 'D':
      case 'E':
      case 'H':
      case 'M':
      case 'c':
      case '=':
      case '>': return 2;
      case 'Z':
        if (!passes(TerminalClass::kStatus)) fail("DECID without the status class", i);
        return 2;
      case '(':
      case ')':
      case '*':
      case '+':
        if (i + 2 >= out.size() || at(i + 2) < 0x30 || at(i + 2) > 0x7e) fail("a cut charset designation", i);
        return 3;
      case '#':
        if (i + 2 >= out.size() || std::string_view("34568").find(out[i + 2]) == std::string_view::npos)
          fail("an ESC # other than line size or alignment", i);
        return 3;
      default: fail("an escape sequence outside the passed set", i);
    }
  }

  void check() const {
    for (size_t i = 0; i < out.size();) {
      const unsigned char b = at(i);
      if (b == kEsc) i += escape(i);
      else if ((b >= 0x20 && b < 0x7f) || (b >= 0x07 && b <= 0x0d) || b == 0x0e || b == 0x0f) ++i;
      else if (b >= 0x80) i += utf8(i);
      else fail("a C0 control the filter drops (NUL, ENQ, DC1-DC4, CAN, SUB, FS-US, DEL)", i);
    }
  }
};

// Chunk sizes from a seed: mostly small (splits inside sequences), sometimes large.
struct Chunks {
  uint32_t state;
  size_t next() {
    state = state * 1103515245U + 12345U;
    const uint32_t r = state >> 8;
    return (r & 3) == 0 ? 1 + (r >> 4) % 8192 : 1 + (r >> 4) % 7;
  }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  TerminalPassSet passed = cordon::default_terminal_pass_set();
  if (data[0] & 1) passed.bits = data[1];  // the low 8 bits: kTitle..kWindow; kKeyboard stays off
  if ((data[0] & 3) == 3) passed.add(TerminalClass::kKeyboard);
  const TerminalPassSet oracle_set = passed;
#ifdef CORDON_FUZZ_PLANTED_DEFECT
  passed.add(TerminalClass::kClipboard);  // the planted defect: OSC 52 let through unasked
#endif
  const std::string_view stream = cordon::fuzz::as_text(data + 3, size - 3);

  cordon::OutputFilter whole(passed);
  std::string whole_out;
  whole.feed(stream, whole_out);
  FUZZ_CHECK(whole.held_bytes() <= cordon::kMaxHeldBytes, "held more than kMaxHeldBytes");
  whole.finish(whole_out);
  FUZZ_CHECK(whole.held_bytes() == 0, "bytes held after finish()");

  cordon::OutputFilter split(passed);
  std::string split_out;
  Chunks chunks{data[2] * 2654435761U + 1};
  for (size_t at = 0; at < stream.size();) {
    const size_t n = std::min(chunks.next(), stream.size() - at);
    const size_t before = split_out.size();
    split.feed(stream.substr(at, n), split_out);
    at += n;
    FUZZ_CHECK(split.held_bytes() <= cordon::kMaxHeldBytes,
               "held " + std::to_string(split.held_bytes()) + " bytes, more than kMaxHeldBytes");
    (void)before;
  }
  const size_t before_finish = split_out.size();
  split.finish(split_out);
  FUZZ_CHECK(split_out.size() == before_finish, "finish() appended output");
  FUZZ_CHECK(split.held_bytes() == 0, "bytes held after finish()");

  Oracle{oracle_set, whole_out}.check();
  FUZZ_CHECK(split_out == whole_out, "the output depends on how the stream is split into feed() calls");
  FUZZ_CHECK(split.dropped() == whole.dropped(), "the dropped counts depend on how the stream is split");
  FUZZ_CHECK(split.modes() == whole.modes(), "the modes depend on how the stream is split");
  FUZZ_CHECK((whole.modes() & ~cordon::kAllTerminalModes) == 0, "a mode bit past kAllTerminalModes");
  return 0;
}
