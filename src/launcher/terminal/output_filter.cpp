#include "launcher/terminal/output_filter.h"

#include <optional>

namespace cordon {
namespace {

using C = TerminalClass;

constexpr unsigned char kEsc = 0x1b;
constexpr unsigned char kCan = 0x18;
constexpr unsigned char kSub = 0x1a;
constexpr std::string_view kReplacement = "\xef\xbf\xbd";  // U+FFFD

// Bytes that pass in ground state as they are: printable ASCII and the C0 controls that only
// move the cursor or ring the bell (SO and SI pass too, but change the charset mode).
constexpr std::array<bool, 256> kPlain = [] {
  std::array<bool, 256> plain{};
  for (unsigned b = 0x20; b < 0x7f; ++b) plain[b] = true;
  for (unsigned b = 0x07; b <= 0x0d; ++b) plain[b] = true;
  return plain;
}();

// A UTF-8 lead byte: the character's length and the range of its second byte, which rules out
// overlong forms, surrogates and code points above U+10FFFF. length 0: not a lead byte.
struct Utf8Lead {
  uint8_t length = 0;
  uint8_t low = 0;
  uint8_t high = 0;
};

constexpr std::array<Utf8Lead, 256> kUtf8Leads = [] {
  std::array<Utf8Lead, 256> leads{};
  for (unsigned b = 0xc2; b <= 0xdf; ++b) leads[b] = {2, 0x80, 0xbf};
  for (unsigned b = 0xe0; b <= 0xef; ++b) leads[b] = {3, 0x80, 0xbf};
  for (unsigned b = 0xf0; b <= 0xf4; ++b) leads[b] = {4, 0x80, 0xbf};
  leads[0xe0].low = 0xa0;
  leads[0xed].high = 0x9f;
  leads[0xf0].low = 0x90;
  leads[0xf4].high = 0x8f;
  return leads;
}();

// U+0080..U+009F: C1 controls, which some terminals execute even UTF-8 encoded.
bool is_c1(unsigned char lead, unsigned char second) { return lead == 0xc2 && second < 0xa0; }

// The length of the complete, valid, non-C1 character at p, or 0 (then the byte-at-a-time
// path decides, so a character split across feed() calls is read the same way).
size_t complete_utf8(const unsigned char* p, size_t available) {
  const Utf8Lead lead = kUtf8Leads[p[0]];
  if (lead.length == 0 || available < lead.length) return 0;
  if (p[1] < lead.low || p[1] > lead.high || is_c1(p[0], p[1])) return 0;
  for (size_t i = 2; i < lead.length; ++i)
    if ((p[i] & 0xc0) != 0x80) return 0;
  return lead.length;
}

// The length of a complete CSI at p that fits kMaxHeldBytes, or 0 (then the byte-at-a-time
// path reads it, the same way).
size_t complete_csi(const unsigned char* p, size_t available) {
  if (available < 3 || p[1] != '[') return 0;
  const size_t end = available < kMaxHeldBytes ? available : kMaxHeldBytes;
  for (size_t i = 2; i < end; ++i) {
    if (p[i] >= 0x40 && p[i] <= 0x7e) return i + 1;
    if (p[i] < 0x20 || p[i] > 0x3f) return 0;
  }
  return 0;
}

// Printable ASCII and valid, non-C1 UTF-8: the text a passed OSC may carry. Anything else
// (DEL, raw C1 bytes such as 0x9C, an 8-bit ST to some terminals) could end it elsewhere.
bool clean_text(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size();) {
    if (p[i] >= 0x20 && p[i] < 0x7f) {
      ++i;
      continue;
    }
    const size_t length = complete_utf8(p + i, text.size() - i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

// A parameter's value; a field that is not all digits, or a number past any mode, is kBig.
constexpr unsigned kBig = 100000;
unsigned param_number(std::string_view field) {
  unsigned value = 0;
  for (char ch : field) {
    if (ch < '0' || ch > '9') return kBig;
    value = value * 10 + static_cast<unsigned>(ch - '0');
    if (value >= kBig) return kBig;
  }
  return value;
}

bool plain_params(std::string_view params) { return params.find_first_not_of("0123456789;") == std::string_view::npos; }
std::string_view first_field(std::string_view params) { return params.substr(0, params.find(';')); }
// One parameter equal to `value` (an empty one is 0).
bool only_param(std::string_view params, unsigned value) {
  return params.find(';') == std::string_view::npos && param_number(params) == value;
}

// The parts of a complete CSI: ESC [ marker? params intermediates final.
struct Csi {
  char marker = 0;
  std::string_view params;
  std::string_view intermediates;
  char final = 0;
};

bool is_marker(char ch) { return ch >= '<' && ch <= '?'; }

// nullopt when the bytes are out of order (a marker after the first parameter byte, a
// parameter byte after an intermediate): terminals disagree on what those mean.
std::optional<Csi> split_csi(std::string_view seq) {
  Csi csi;
  std::string_view body = seq.substr(2, seq.size() - 3);
  csi.final = seq.back();
  if (!body.empty() && is_marker(body[0])) {
    csi.marker = body[0];
    body.remove_prefix(1);
  }
  size_t i = 0;
  while (i < body.size() && body[i] >= 0x30 && body[i] <= 0x3f) {
    if (is_marker(body[i])) return std::nullopt;
    ++i;
  }
  csi.params = body.substr(0, i);
  csi.intermediates = body.substr(i);
  for (char ch : csi.intermediates)
    if (ch < 0x20 || ch > 0x2f) return std::nullopt;
  return csi;
}

// XTWINOPS (CSI Ps t) by its first parameter.
C window_op_class(std::string_view params) {
  const unsigned op = param_number(first_field(params));
  if ((op >= 1 && op <= 10) || op >= 24) return C::kWindow;  // 10: full screen, as 9 maximises
  if (op == 22 || op == 23) return C::kTitle;                // the title stack
  // Geometry reports (11, 13-16, 18, 19) describe the host; title reports (20, 21) echo text
  // the sandbox chose.
  if (op >= 11 && op <= 21 && op != 12 && op != 17) return C::kQuery;
  return C::kUnknown;
}

// A CSI without marker or intermediates, other than SGR and SM/RM; nullopt: drawing, passes.
std::optional<C> plain_csi_class(const Csi& csi) {
  constexpr std::string_view kDrawing = "@ABCDEFGHIJKLMPSTXZ`abdefgrs";
  if (kDrawing.find(csi.final) != std::string_view::npos) return std::nullopt;
  switch (csi.final) {
    case 'u': return csi.params.empty() ? std::nullopt : std::optional(C::kUnknown);  // SCORC
    case 'n': return only_param(csi.params, 5) || only_param(csi.params, 6) ? C::kStatus : C::kUnknown;
    case 'c': return only_param(csi.params, 0) ? C::kStatus : C::kUnknown;  // DA1
    case 't': return window_op_class(csi.params);
    default: return C::kUnknown;
  }
}

std::optional<C> marker_csi_class(const Csi& csi) {
  switch (csi.marker) {
    case '?':
      if (csi.final == 'J' || csi.final == 'K') return std::nullopt;  // selective erase
      // Private DSR: fixed reports, except ?996n, which answers with the host's colour theme.
      if (csi.final == 'n') return only_param(csi.params, 996) ? C::kQuery : C::kStatus;
      return csi.final == 'u' ? C::kKeyboard : C::kUnknown;
    case '>':
      if (csi.final == 'c' || csi.final == 'q') return C::kStatus;  // DA2, XTVERSION
      if (csi.final == 'm' || csi.final == 'n' || csi.final == 'u') return C::kKeyboard;
      return csi.final == 't' || csi.final == 'T' ? C::kTitle : C::kUnknown;
    case '<': return csi.final == 'u' ? C::kKeyboard : C::kUnknown;
    case '=':
      if (csi.final == 'c') return C::kStatus;  // DA3
      return csi.final == 'u' ? C::kKeyboard : C::kUnknown;
    default: return C::kUnknown;
  }
}

std::optional<C> intermediate_csi_class(const Csi& csi) {
  const std::string_view i = csi.intermediates;
  if (csi.marker == '?') return i == "$" && csi.final == 'p' ? C::kStatus : C::kUnknown;  // DECRQM
  if (csi.marker != 0) return C::kUnknown;
  if (i == " " && csi.final == 'q') return std::nullopt;                        // DECSCUSR
  if (i == "!" && csi.final == 'p' && csi.params.empty()) return std::nullopt;  // DECSTR
  if (i == "$" && csi.final == 'p') return C::kStatus;                          // DECRQM
  if (i == "\"" && csi.final == 'q') return std::nullopt;                       // DECSCA
  return C::kUnknown;  // DECSCL (" p) among them: it can switch the terminal to 8-bit controls
}

// A complete CSI other than SM/RM (decided per parameter); nullopt: drawing, always passes.
std::optional<C> csi_class(const Csi& csi) {
  if (csi.marker == 0 && csi.intermediates.empty() && csi.final == 'm') return std::nullopt;  // SGR, ':' too
  if (!plain_params(csi.params)) return C::kUnknown;
  if (!csi.intermediates.empty()) return intermediate_csi_class(csi);
  if (csi.marker != 0) return marker_csi_class(csi);
  return plain_csi_class(csi);
}

// The sources of the modes several sequences turn on, a bit each in sources_: such a mode is
// on while any of its sources is.
struct SourceGroup {
  unsigned first;
  unsigned count;
  uint32_t mode;
};
constexpr unsigned kSrcMouse = 0;      // ?9 ?1000 ?1002 ?1003 ?1005 ?1006 ?1015 ?1016
constexpr unsigned kSrcAltScreen = 8;  // ?47 ?1047 ?1049
constexpr unsigned kSrcMargins = 11;   // CSI r, ?69
constexpr unsigned kSrcCharset = 13;   // G0-G3 designations, SO
constexpr unsigned kSrcShiftOut = kSrcCharset + 4;
constexpr unsigned kSrcNone = 32;
constexpr SourceGroup kSourceGroups[] = {
    {kSrcMouse, 8, kModeMouse},
    {kSrcAltScreen, 3, kModeAltScreen},
    {kSrcMargins, 2, kModeScrollRegion},
    {kSrcCharset, 5, kModeCharset},
};
constexpr uint32_t kCharsetSources = 0x1fU << kSrcCharset;

// The DEC private modes that pass: what each turns on (0: untracked), and whether "l" is on.
struct DecMode {
  uint16_t number;
  uint32_t mode;
  bool on_when_reset;
  unsigned source;  // its bit in sources_ when other sequences share the mode, else kSrcNone
};

constexpr DecMode kDecModes[] = {
    {1, kModeAppCursorKeys, false, kSrcNone},
    {5, kModeReverseVideo, false, kSrcNone},
    {6, kModeOrigin, false, kSrcNone},
    {7, kModeNoAutowrap, true, kSrcNone},
    {9, kModeMouse, false, kSrcMouse},
    {12, 0, false, kSrcNone},  // cursor blink
    {25, kModeCursorHidden, true, kSrcNone},
    {47, kModeAltScreen, false, kSrcAltScreen},
    {66, kModeAppKeypad, false, kSrcNone},
    {69, kModeScrollRegion, false, kSrcMargins + 1},
    {1000, kModeMouse, false, kSrcMouse + 1},
    {1002, kModeMouse, false, kSrcMouse + 2},
    {1003, kModeMouse, false, kSrcMouse + 3},
    {1004, kModeFocus, false, kSrcNone},
    {1005, kModeMouse, false, kSrcMouse + 4},
    {1006, kModeMouse, false, kSrcMouse + 5},
    {1007, kModeAltScroll, false, kSrcNone},
    {1015, kModeMouse, false, kSrcMouse + 6},
    {1016, kModeMouse, false, kSrcMouse + 7},
    {1047, kModeAltScreen, false, kSrcAltScreen + 1},
    {1048, 0, false, kSrcNone},  // save / restore the cursor
    {1049, kModeAltScreen, false, kSrcAltScreen + 2},
    {2004, kModeBracketedPaste, false, kSrcNone},
    {2026, kModeSyncOutput, false, kSrcNone},
    {2027, 0, false, kSrcNone},  // grapheme clusters
};

const DecMode* find_dec_mode(unsigned number) {
  for (const DecMode& m : kDecModes)
    if (m.number == number) return &m;
  return nullptr;
}

// A DECSET/DECRST parameter: nullopt when it passes as drawing.
std::optional<C> dec_mode_class(unsigned number) {
  if (find_dec_mode(number) != nullptr) return std::nullopt;
  if (number == 1034 || number == 1036 || number == 1039) return C::kKeyboard;  // meta-key modes
  return C::kUnknown;  // 3 (DECCOLM resizes the window), 1001 (highlight tracking), ...
}

// An SM/RM parameter: insert mode (4) passes; KAM (2) would lock the keyboard and LNM (20)
// would change what Enter sends in the operator's shell after the session.
std::optional<C> ansi_mode_class(unsigned number) { return number == 4 ? std::nullopt : std::optional(C::kUnknown); }

// The class of an OSC from its body (between ESC ] and the terminator).
C osc_class(std::string_view body) {
  const size_t semi = body.find(';');
  const std::string_view number = body.substr(0, semi);
  if (number.empty() || !plain_params(number)) return C::kUnknown;
  const unsigned ps = param_number(number);
  switch (ps) {
    case 0:
    case 1:
    case 2: return C::kTitle;
    case 8: return C::kHyperlink;
    case 52: return C::kClipboard;
    case 9:
    case 99:
    case 777: return C::kNotify;
    default: break;
  }
  const bool palette = ps == 4 || ps == 5 || (ps >= 10 && ps <= 19) || (ps >= 104 && ps <= 106) ||
                       (ps >= 110 && ps <= 119);
  if (!palette) return C::kUnknown;  // 7, 50, 51, 133, 1337, ...
  for (std::string_view rest = semi == std::string_view::npos ? "" : body.substr(semi + 1);;) {
    const std::string_view field = first_field(rest);
    if (field == "?") return C::kQuery;
    if (field.size() == rest.size()) return C::kPalette;
    rest.remove_prefix(field.size() + 1);
  }
}

}  // namespace

std::string terminal_reset_sequence(uint32_t modes) {
  struct Reset {
    uint32_t mode;
    std::string_view bytes;
  };
  // The alternate screen's exit restores the cursor saved on entry, so it follows the resets
  // that home the cursor (margins, origin); the restore also brings back the attributes and
  // charsets saved with it, so their resets come after it.
  static constexpr Reset kResets[] = {
      {kModeCursorHidden, "\x1b[?25h"},
      {kModeMouse, "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1016l\x1b[?9l"},
      {kModeFocus, "\x1b[?1004l"},
      {kModeBracketedPaste, "\x1b[?2004l"},
      {kModeAppCursorKeys, "\x1b[?1l"},
      {kModeAppKeypad, "\x1b>\x1b[?66l"},
      {kModeSyncOutput, "\x1b[?2026l"},
      {kModeReverseVideo, "\x1b[?5l"},
      {kModeOrigin, "\x1b[?6l"},
      {kModeNoAutowrap, "\x1b[?7h"},
      // DECSTBM homes the cursor: between DECSC and DECRC, so the prompt after the session stays
      // where the session left the cursor (vim leaves a full-screen region set, CSI 1;ROWS r).
      {kModeScrollRegion,
       "\x1b"
       "7\x1b[r\x1b"
       "8\x1b[?69l"},
      {kModeInsert, "\x1b[4l"},
      {kModeCursorStyle, "\x1b[0 q"},
      {kModeAltScroll, "\x1b[?1007l"},
      // The kitty stack is one per screen: emptied on the screen the session left on, then
      // (after the alternate screen's exit) on the main one; modifyOtherKeys back to its initial.
      {kModeKeyboard, "\x1b[<99u\x1b[>4m"},
      {kModeAltScreen, "\x1b[?1049l"},
      {kModeKeyboard, "\x1b[<99u"},
      {kModeAttributes, "\x1b[0m"},
      {kModeCharset, "\x1b(B\x0f"},
  };
  std::string out;
  for (const Reset& r : kResets)
    if ((modes & r.mode) != 0) out.append(r.bytes);
  return out;
}

OutputFilter::OutputFilter(TerminalPassSet passed) : passed_(passed) {
  passed_.bits &= ~(1U << static_cast<unsigned>(C::kUnknown));
}

void OutputFilter::feed(std::string_view input, std::string& out) {
  const auto* p = reinterpret_cast<const unsigned char*>(input.data());
  const size_t n = input.size();
  size_t i = 0;
  while (i < n) {
    if (state_ == State::kGround) i = ground_run(p, n, i, out);
    else if (state_ == State::kString || (state_ == State::kOsc && discarding_)) i = skip_string(p, n, i, out);
    else step(p[i++], out);
  }
}

void OutputFilter::finish(std::string& /*out*/) {
  if (state_ != State::kGround && !discarding_) drop(C::kUnknown);
  reset_ground();
}

// The fast path: a run of bytes that pass as they are is appended in one go.
size_t OutputFilter::ground_run(const unsigned char* p, size_t n, size_t i, std::string& out) {
  const size_t start = i;
  while (i < n) {
    if (kPlain[p[i]]) {
      ++i;
      continue;
    }
    const size_t length = p[i] >= 0x80 ? complete_utf8(p + i, n - i) : 0;
    if (length == 0) break;
    i += length;
  }
  if (i > start) out.append(reinterpret_cast<const char*>(p + start), i - start);
  if (i == n) return i;
  if (const size_t length = p[i] == kEsc ? complete_csi(p + i, n - i) : 0; length != 0) {
    // A whole CSI in the input (SGR, cursor movement): decided in place, never copied to held_.
    decide_csi(std::string_view(reinterpret_cast<const char*>(p + i), length), out);
    return i + length;
  }
  ground(p[i++], out);
  return i;
}

// Skips a discarded string up to the byte that may end it: ESC, CAN or SUB for DCS/APC/PM/SOS,
// any C0 byte for a dropped OSC.
size_t OutputFilter::skip_string(const unsigned char* p, size_t n, size_t i, std::string& out) {
  if (state_ == State::kOsc) {
    while (i < n && p[i] >= 0x20) ++i;
  } else {
    while (i < n && p[i] != kEsc && p[i] != kCan && p[i] != kSub) ++i;
  }
  if (i < n) step(p[i++], out);
  return i;
}

void OutputFilter::step(unsigned char byte, std::string& out) {
  switch (state_) {
    case State::kGround: ground(byte, out); return;
    case State::kUtf8: utf8(byte, out); return;
    case State::kEscape: escape(byte, out); return;
    case State::kEscapeIntermediate: escape_intermediate(byte, out); return;
    case State::kCsi: csi(byte, out); return;
    case State::kOsc: osc(byte, out); return;
    case State::kOscEscape: osc_escape(byte, out); return;
    case State::kString:
      if (byte == kEsc) state_ = State::kStringEscape;
      else if (byte == kCan || byte == kSub) reset_ground();
      return;
    case State::kStringEscape: string_escape(byte, out); return;
  }
}

void OutputFilter::ground(unsigned char byte, std::string& out) {
  if (kPlain[byte]) {
    out.push_back(static_cast<char>(byte));
  } else if (byte >= 0x80) {
    if (kUtf8Leads[byte].length == 0) {
      out.append(kReplacement);
    } else {
      held_.assign(1, static_cast<char>(byte));
      state_ = State::kUtf8;
    }
  } else if (byte == 0x0e || byte == 0x0f) {  // SO, SI: shift to G1 and back
    out.push_back(static_cast<char>(byte));
    set_source(kSrcShiftOut, byte == 0x0e);
  } else if (byte == kEsc) {
    start_escape();
  } else {
    drop(C::kUnknown);  // NUL, ENQ (answerback), DC1-DC4, CAN, SUB, FS-US, DEL
  }
}

// A continuation byte of a held character. Invalid UTF-8 is replaced by one U+FFFD per maximal
// invalid subpart (Unicode's recommended practice, as browsers do): a bad lead byte or a held
// prefix that the next byte does not continue.
void OutputFilter::utf8(unsigned char byte, std::string& out) {
  const Utf8Lead lead = kUtf8Leads[static_cast<unsigned char>(held_[0])];
  const bool second = held_.size() == 1;
  const unsigned low = second ? lead.low : 0x80;
  const unsigned high = second ? lead.high : 0xbf;
  if (byte < low || byte > high) {
    out.append(kReplacement);
    reset_ground();
    ground(byte, out);
    return;
  }
  held_.push_back(static_cast<char>(byte));
  if (held_.size() < lead.length) return;
  if (is_c1(static_cast<unsigned char>(held_[0]), static_cast<unsigned char>(held_[1]))) drop(C::kUnknown);
  else out.append(held_);
  reset_ground();
}

void OutputFilter::escape(unsigned char byte, std::string& out) {
  switch (byte) {
    case kCan:
    case kSub: abandon(C::kUnknown); return;
    case kEsc: drop(C::kUnknown); return;  // abandons the ESC, starts again
    case '[':
      held_.push_back('[');
      state_ = State::kCsi;
      return;
    case ']':
      held_.push_back(']');
      state_ = State::kOsc;
      return;
    case 'P':
    case 'X':
    case '^':
    case '_':  // DCS, SOS, PM, APC: counted now, never held
      drop(C::kUnknown);
      held_.clear();
      state_ = State::kString;
      discarding_ = true;
      return;
    default: break;
  }
  if (byte >= 0x20 && byte <= 0x2f) {
    held_.push_back(static_cast<char>(byte));
    state_ = State::kEscapeIntermediate;
  } else if (byte >= 0x30 && byte <= 0x7e) {
    escape_final(byte, out);
  } else {
    abandon(C::kUnknown);
    ground(byte, out);
  }
}

void OutputFilter::escape_intermediate(unsigned char byte, std::string& out) {
  if (byte == kCan || byte == kSub) return abandon(C::kUnknown);
  if (byte == kEsc) {
    abandon(C::kUnknown);
    return start_escape();
  }
  if (byte >= 0x20 && byte <= 0x2f) {
    // Only ESC I F passes: a longer one is counted now and dropped at its end, never held.
    if (!discarding_) drop(C::kUnknown);
    discarding_ = true;
    return;
  }
  if (byte >= 0x30 && byte <= 0x7e) return escape_designate(byte, out);
  abandon(C::kUnknown);
  ground(byte, out);
}

void OutputFilter::escape_final(unsigned char byte, std::string& out) {
  reset_ground();
  switch (byte) {
    case '7': save_cursor(); break;     // DECSC
    case '8': restore_cursor(); break;  // DECRC
    case 'D':
    case 'E':
    case 'H':
    case 'M': break;
    case 'c':  // RIS: the terminal resets everything
      modes_ = sources_ = saved_modes_ = saved_sources_ = 0;
      break;
    case '=': set_mode(kModeAppKeypad, true); break;
    case '>': set_mode(kModeAppKeypad, false); break;
    case 'Z':  // DECID: the terminal reports its identity
      if (passes(C::kStatus)) break;
      drop(C::kStatus);
      return;
    default: drop(C::kUnknown); return;  // ESC \ alone, LS2/LS3, SS2/SS3, ESC l/m, ...
  }
  out.push_back(static_cast<char>(kEsc));
  out.push_back(static_cast<char>(byte));
}

// ESC I F: charset designations (G0-G3) and the DEC line sizes / alignment test pass.
void OutputFilter::escape_designate(unsigned char byte, std::string& out) {
  const char intermediate = held_[1];
  const bool charset = intermediate >= '(' && intermediate <= '+';
  const bool line = intermediate == '#' &&
                    std::string_view("34568").find(static_cast<char>(byte)) != std::string_view::npos;
  if (!discarding_ && (charset || line)) {
    out.append(held_);
    out.push_back(static_cast<char>(byte));
    if (charset) set_source(kSrcCharset + static_cast<unsigned>(intermediate - '('), byte != 'B');
  } else if (!discarding_) {
    drop(C::kUnknown);  // ESC % (UTF-8 mode switches), ESC SP F/G (7/8-bit controls), ...
  }
  reset_ground();
}

void OutputFilter::csi(unsigned char byte, std::string& out) {
  if (byte == kCan || byte == kSub) return abandon(C::kUnknown);
  if (byte == kEsc) {
    abandon(C::kUnknown);
    return start_escape();
  }
  if (byte < 0x20 || byte > 0x7e) {
    abandon(C::kUnknown);
    return ground(byte, out);
  }
  if (held_.size() < kMaxHeldBytes) {
    held_.push_back(static_cast<char>(byte));
  } else if (!discarding_) {
    drop(C::kUnknown);  // too long: counted now, dropped at its end
    discarding_ = true;
  }
  if (byte >= 0x40) finish_csi(out);
}

void OutputFilter::finish_csi(std::string& out) {
  if (!discarding_) decide_csi(held_, out);
  reset_ground();
}

void OutputFilter::decide_csi(std::string_view seq, std::string& out) {
  const std::optional<Csi> csi = split_csi(seq);
  if (!csi) return drop(C::kUnknown);
  const bool mode_set = csi->final == 'h' || csi->final == 'l';
  if (mode_set && csi->intermediates.empty() && (csi->marker == 0 || csi->marker == '?')) {
    if (plain_params(csi->params)) set_modes(csi->marker, csi->params, csi->final == 'h', out);
    else drop(C::kUnknown);
  } else if (const std::optional<C> c = csi_class(*csi); !c || passes(*c)) {
    out.append(seq);
    if (!c && csi->marker == 0) track_csi(csi->final, csi->params, csi->intermediates);
    if (c == C::kKeyboard) track_keyboard(csi->marker, csi->final, csi->params);
  } else {
    drop(*c);
  }
}

// SM/RM and DECSET/DECRST, decided per parameter: the sequence is rebuilt with the parameters
// that pass, each one dropped counts in its class, and it is dropped when none is left.
void OutputFilter::set_modes(char marker, std::string_view params, bool set, std::string& out) {
  const size_t start = out.size();
  out.append("\x1b[");
  if (marker != 0) out.push_back(marker);
  bool kept = false;
  for (std::string_view rest = params;;) {
    const std::string_view field = first_field(rest);
    const unsigned number = param_number(field);
    const std::optional<C> c = marker != 0 ? dec_mode_class(number) : ansi_mode_class(number);
    if (c && !passes(*c)) {
      drop(*c);
    } else {
      if (kept) out.push_back(';');
      out.append(field);
      kept = true;
      if (!c && marker != 0) track_dec_mode(number, set);
      else if (!c && number == 4) set_mode(kModeInsert, set);
    }
    if (field.size() == rest.size()) break;
    rest.remove_prefix(field.size() + 1);
  }
  if (kept) out.push_back(set ? 'h' : 'l');
  else out.resize(start);
}

// The modes a passed CSI without marker changes.
void OutputFilter::track_csi(char final, std::string_view params, std::string_view intermediates) {
  if (intermediates == " ") return set_mode(kModeCursorStyle, !only_param(params, 0));  // DECSCUSR
  // DECSTR (CSI ! p) changes nothing here: what a soft reset resets differs between terminals
  // (xterm's leaves mouse, paste and focus modes on), and a mode wrongly thought off stays on.
  if (!intermediates.empty()) return;
  switch (final) {
    case 'm': set_mode(kModeAttributes, params.find_first_not_of("0;") != std::string_view::npos); return;
    case 'r': set_source(kSrcMargins, !params.empty()); return;
    case 's': save_cursor(); return;     // SCOSC
    case 'u': restore_cursor(); return;  // SCORC
    default: return;
  }
}

// The kitty keyboard protocol (a stack of flags: CSI > F u pushes, CSI < N u pops N, CSI = F ; M u
// sets the current flags) and xterm's modifyOtherKeys (CSI > 4 ; N m sets, CSI > 4 m and
// CSI > 4 n reset). Conservative: a push while the flags are unknown counts as on.
void OutputFilter::track_keyboard(char marker, char final, std::string_view params) {
  const std::string_view first = first_field(params);
  if (final == 'u' && marker == '>') ++keyboard_pushes_;
  if (final == 'u' && marker == '<') {
    const unsigned n = first.empty() ? 1 : param_number(first);
    // Emptying the stack resets every flag, those set with CSI = u included.
    if (n >= keyboard_pushes_) keyboard_flags_set_ = false;
    keyboard_pushes_ = n >= keyboard_pushes_ ? 0 : keyboard_pushes_ - n;
  }
  if (final == 'u' && marker == '=') keyboard_flags_set_ = param_number(first) != 0;
  if (marker == '>' && param_number(first) == 4 && (final == 'm' || final == 'n'))
    modify_other_keys_ = final == 'm' && first.size() < params.size() &&
                         param_number(params.substr(first.size() + 1)) != 0;
  set_mode(kModeKeyboard, keyboard_pushes_ > 0 || keyboard_flags_set_ || modify_other_keys_);
}

void OutputFilter::track_dec_mode(unsigned number, bool set) {
  const DecMode* m = find_dec_mode(number);
  if (m == nullptr) return;
  if ((number == 1048 || number == 1049) && set) save_cursor();
  const bool on = set != m->on_when_reset;
  if (m->source != kSrcNone) set_source(m->source, on);
  else set_mode(m->mode, on);
  if ((number == 1048 || number == 1049) && !set) restore_cursor();
}

// OSC Ps ; Pt: held whole and decided at its end, unless its class is known from Ps to drop.
void OutputFilter::osc(unsigned char byte, std::string& out) {
  if (byte == 0x07) return finish_osc("\x07", out);
  if (byte == kEsc) {
    state_ = State::kOscEscape;
    return;
  }
  if (byte < 0x20) {
    // CAN and SUB abort it; any other C0 byte ends it too and is then read in ground.
    abandon(osc_held_class());
    if (byte != kCan && byte != kSub) ground(byte, out);
    return;
  }
  if (discarding_) return;
  if (held_.size() >= kMaxHeldBytes) {
    drop(osc_held_class());  // too long: counted now, the rest discarded as it comes
    discarding_ = true;
    held_.clear();
    return;
  }
  held_.push_back(static_cast<char>(byte));
  if (byte == ';' && !osc_number_known_) osc_number_known();
}

void OutputFilter::osc_number_known() {
  osc_number_known_ = true;
  const C c = osc_class(std::string_view(held_).substr(2));
  // A palette OSC is held to its end either way: a "?" field in it makes it a query.
  if (c == C::kPalette || passes(c)) return;
  drop(c);
  discarding_ = true;
  held_.clear();
}

void OutputFilter::osc_escape(unsigned char byte, std::string& out) {
  if (byte == '\\') return finish_osc("\x1b\\", out);
  // Any other byte ends the OSC as dropped; the ESC starts a new sequence.
  abandon(osc_held_class());
  start_escape();
  escape(byte, out);
}

void OutputFilter::finish_osc(std::string_view terminator, std::string& out) {
  if (!discarding_) {
    const std::string_view body = std::string_view(held_).substr(2);
    const C c = osc_class(body);
    if (!passes(c)) {
      drop(c);
    } else if (!clean_text(body)) {
      drop(C::kUnknown);
    } else {
      out.append(held_);
      out.append(terminator);
    }
  }
  reset_ground();
}

// The class of the held OSC so far: known once its Ps ended.
TerminalClass OutputFilter::osc_held_class() const {
  return osc_number_known_ && !discarding_ ? osc_class(std::string_view(held_).substr(2)) : C::kUnknown;
}

// An ESC inside a DCS/APC/PM/SOS string: ST ends it; any other byte ends it too and the ESC
// starts a new sequence, as in the DEC parser (ESC is recognised in any state).
void OutputFilter::string_escape(unsigned char byte, std::string& out) {
  reset_ground();
  if (byte == '\\') return;
  start_escape();
  escape(byte, out);
}

void OutputFilter::start_escape() {
  held_.assign(1, static_cast<char>(kEsc));
  state_ = State::kEscape;
}

// The current sequence ends dropped: counted (unless it was already) and forgotten.
void OutputFilter::abandon(TerminalClass c) {
  if (!discarding_) drop(c);
  reset_ground();
}

void OutputFilter::reset_ground() {
  state_ = State::kGround;
  held_.clear();
  discarding_ = false;
  osc_number_known_ = false;
}

void OutputFilter::set_mode(uint32_t mode, bool on) { modes_ = on ? modes_ | mode : modes_ & ~mode; }

void OutputFilter::set_source(unsigned source, bool on) {
  sources_ = on ? sources_ | (1U << source) : sources_ & ~(1U << source);
  for (const SourceGroup& g : kSourceGroups) {
    const uint32_t bits = ((1U << g.count) - 1) << g.first;
    if ((bits & (1U << source)) != 0) set_mode(g.mode, (sources_ & bits) != 0);
  }
}

// DECSC saves the attributes, the origin mode and the charsets; a later restore may bring back
// any of the states saved since (the main and alternate screens may keep one each).
void OutputFilter::save_cursor() {
  saved_modes_ |= modes_ & (kModeAttributes | kModeOrigin);
  saved_sources_ |= sources_ & kCharsetSources;
}

void OutputFilter::restore_cursor() {
  modes_ |= saved_modes_;
  sources_ |= saved_sources_;
  if ((sources_ & kCharsetSources) != 0) modes_ |= kModeCharset;
}

}  // namespace cordon
