// The classes of terminal control sequences the private terminal's output filter tells apart
// (src/launcher/terminal/output_filter.h). One table for the names the configuration
// ([terminal] pass), the manifest, the receipt and docs/terminal.md use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

// Every class but kUnknown can be passed deliberately with [terminal] pass.
enum class TerminalClass : uint8_t {
  kTitle,      // OSC 0/1/2 window and icon titles, CSI 22/23 t title stack, CSI > t/T title modes
  kHyperlink,  // OSC 8 hyperlinks
  kClipboard,  // OSC 52 clipboard writes and reads
  kPalette,    // OSC 4/5/10-19/104-119 colour and palette changes and resets
  kNotify,     // OSC 9/99/777 desktop notifications
  kStatus,     // reports with fixed, terminal-computed content: DSR 5n/6n/?6n, DA1/2/3, DECRQM, XTVERSION, DECID
  kQuery,      // reports whose content the sandbox can choose or that describe the host: title/icon
               // reports (CSI 20/21 t), window geometry reports (CSI 11/13/14/15/16/18/19 t), OSC
               // colour queries ("?"), the theme report (CSI ?996n). DECRQSS and XTGETTCAP are DCS
               // strings, which are kUnknown: never passed
  kWindow,     // window manipulation: CSI t move, resize, iconify, raise, lower, maximise, full screen
  kKeyboard,   // input encodings that outlive a session: kitty keyboard protocol (CSI >/</=/? u),
               // modifyOtherKeys (CSI > m / > n), meta-key modes (?1034/1036/1039)
  kUnknown,    // everything else that is not plain drawing: DCS, APC, PM, SOS, other OSC, C1
               // controls, unlisted ESC/CSI sequences and DEC modes, answerback (ENQ); never passed
};
inline constexpr size_t kTerminalClassCount = static_cast<size_t>(TerminalClass::kUnknown) + 1;

// The configuration name of a class ("title", "hyperlink", ..., "unknown").
const char* terminal_class_name(TerminalClass c);
// The class named `name`, or nullopt for a name that is not one.
std::optional<TerminalClass> terminal_class_named(std::string_view name);
// The names a configuration may list in [terminal] pass (every class but "unknown").
std::vector<std::string> passable_terminal_class_names();

// Which classes reach the operator's terminal: a bit per class.
struct TerminalPassSet {
  uint32_t bits = 0;
  bool passes(TerminalClass c) const { return (bits >> static_cast<unsigned>(c)) & 1U; }
  void add(TerminalClass c) { bits |= 1U << static_cast<unsigned>(c); }
};

// The default: only kStatus passes. TUIs need the cursor position report (crossterm, which
// Codex uses, gives up without one), and its reply is digits the terminal computes, sent as the
// sandbox's own input while the relay runs.
TerminalPassSet default_terminal_pass_set();

}  // namespace cordon
