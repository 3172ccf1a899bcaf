// The private terminal's output filter: a streaming parser between the sandbox's pty and the
// operator's terminal. Text, colours, cursor movement and the drawing modes TUIs need pass;
// sequences that reach outside the window (clipboard, reports that make the terminal type
// into its input, titles, palette, window manipulation, keyboard encodings) are dropped unless
// their class is passed ([terminal] pass). It never holds more than kMaxHeldBytes, and it
// emits a character or a sequence whole or not at all: a decision is never split across
// feed() calls.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/terminal_classes.h"

namespace cordon {

// A sequence longer than this is dropped whole (an OSC keeps its class for the count, a CSI
// counts as kUnknown); bytes of DCS/APC/PM/SOS strings and dropped OSC strings are discarded
// as they come, never held.
inline constexpr size_t kMaxHeldBytes = 4096;

// The modes the filter let through that are on now: what the operator's terminal must have
// undone after the session. A bit per mode; shareable as a plain integer (the terminal keeper
// reads it from shared memory after a SIGKILLed launcher).
enum TerminalMode : uint32_t {
  kModeAltScreen = 1U << 0,       // ?47 / ?1047 / ?1049
  kModeCursorHidden = 1U << 1,    // ?25 l
  kModeMouse = 1U << 2,           // ?9 / ?1000 / ?1002 / ?1003 / ?1005 / ?1006 / ?1015 / ?1016
  kModeFocus = 1U << 3,           // ?1004
  kModeBracketedPaste = 1U << 4,  // ?2004
  kModeAppCursorKeys = 1U << 5,   // ?1
  kModeAppKeypad = 1U << 6,       // ESC = (or ?66)
  kModeSyncOutput = 1U << 7,      // ?2026
  kModeReverseVideo = 1U << 8,    // ?5
  kModeOrigin = 1U << 9,          // ?6
  kModeNoAutowrap = 1U << 10,     // ?7 l
  kModeScrollRegion = 1U << 11,   // CSI r with parameters / ?69 margins
  kModeAttributes = 1U << 12,     // SGR not reset since set
  kModeInsert = 1U << 13,         // CSI 4 h
  kModeCharset = 1U << 14,        // a G0-G3 designation other than ASCII, or SO (shift out)
  kModeCursorStyle = 1U << 15,    // CSI Ps SP q
  kModeAltScroll = 1U << 16,      // ?1007
  // The kitty keyboard protocol pushed or set (CSI > u, CSI = u) or modifyOtherKeys on
  // (CSI > 4 ; N m): what the keyboard sends, which must not outlive the session.
  kModeKeyboard = 1U << 17,
};

// The bytes that undo `modes`, "" for 0. The alternate screen's exit comes after the resets
// that home the cursor, so the main screen's saved cursor is what stays; the attributes and
// charset resets follow it, since that restore also brings back the attributes and charsets
// saved with the cursor.
std::string terminal_reset_sequence(uint32_t modes);
// Every mode above undone, for when the modes are not known.
inline constexpr uint32_t kAllTerminalModes = (1U << 18) - 1;

class OutputFilter {
 public:
  // `passed` never lets kUnknown through, whatever its bits say.
  explicit OutputFilter(TerminalPassSet passed);

  // Appends the filtered form of `input` to `out`; an incomplete character or sequence at the
  // end is held for the next call.
  void feed(std::string_view input, std::string& out);
  // End of the stream: whatever is held is incomplete and is dropped (counted as kUnknown);
  // nothing is appended to `out`.
  void finish(std::string& out);

  // How many sequences of each class were dropped (indexed by TerminalClass). A SM/RM (CSI h/l)
  // sequence counts each parameter it loses; an invalid UTF-8 byte is replaced, not counted.
  const std::array<uint64_t, kTerminalClassCount>& dropped() const { return dropped_; }
  // The modes let through that are on now. A mode several sequences turn on (mouse tracking
  // and encodings, the three alternate screens, margins, charsets) stays on until all of them
  // are off, and a cursor restore (ESC 8, CSI u, ?1048/?1049 l) brings back what any save may
  // have saved: an extra reset costs nothing, a missing one leaves the terminal broken.
  uint32_t modes() const { return modes_; }
  // The bytes held for the next call now (a partial character or sequence), at most
  // kMaxHeldBytes.
  size_t held_bytes() const { return held_.size(); }

 private:
  enum class State : uint8_t {
    kGround,
    kUtf8,                // held_: a partial UTF-8 character
    kEscape,              // held_: ESC
    kEscapeIntermediate,  // held_: ESC and an intermediate byte
    kCsi,                 // held_: ESC [ and what followed
    kOsc,                 // held_: ESC ] and what followed (empty when discarding_)
    kOscEscape,           // an ESC inside an OSC: ST or the start of a new sequence
    kString,              // a DCS/APC/PM/SOS string, discarded as it comes
    kStringEscape,        // an ESC inside one
  };

  size_t ground_run(const unsigned char* p, size_t n, size_t i, std::string& out);
  size_t skip_string(const unsigned char* p, size_t n, size_t i, std::string& out);
  void step(unsigned char byte, std::string& out);
  void ground(unsigned char byte, std::string& out);
  void utf8(unsigned char byte, std::string& out);
  void escape(unsigned char byte, std::string& out);
  void escape_intermediate(unsigned char byte, std::string& out);
  void escape_final(unsigned char byte, std::string& out);
  void escape_designate(unsigned char byte, std::string& out);
  void csi(unsigned char byte, std::string& out);
  void finish_csi(std::string& out);
  void decide_csi(std::string_view seq, std::string& out);
  void set_modes(char marker, std::string_view params, bool set, std::string& out);
  void track_csi(char final, std::string_view params, std::string_view intermediates);
  void track_dec_mode(unsigned number, bool set);
  void track_keyboard(char marker, char final, std::string_view params);
  void osc(unsigned char byte, std::string& out);
  void osc_escape(unsigned char byte, std::string& out);
  void osc_number_known();
  void finish_osc(std::string_view terminator, std::string& out);
  TerminalClass osc_held_class() const;
  void string_escape(unsigned char byte, std::string& out);
  void start_escape();
  void abandon(TerminalClass c);
  void reset_ground();
  void set_mode(uint32_t mode, bool on);
  void set_source(unsigned source, bool on);
  void save_cursor();
  void restore_cursor();
  bool passes(TerminalClass c) const { return passed_.passes(c); }
  void drop(TerminalClass c) { ++dropped_[static_cast<size_t>(c)]; }

  TerminalPassSet passed_;
  State state_ = State::kGround;
  std::string held_;               // the sequence or character being read, ESC / lead byte included
  bool discarding_ = false;        // the current sequence is counted already and no longer held
  bool osc_number_known_ = false;  // the held OSC's Ps ended (at its first ';')
  std::array<uint64_t, kTerminalClassCount> dropped_{};
  uint32_t modes_ = 0;
  uint32_t sources_ = 0;        // which sequences hold a shared mode on (a bit per source)
  uint32_t saved_modes_ = 0;    // modes a cursor save may have saved (attributes, origin)
  uint32_t saved_sources_ = 0;  // charset sources a cursor save may have saved
  // The keyboard protocol's state as far as passed sequences tell (kModeKeyboard while any).
  unsigned keyboard_pushes_ = 0;
  bool keyboard_flags_set_ = false;
  bool modify_other_keys_ = false;
};

}  // namespace cordon
