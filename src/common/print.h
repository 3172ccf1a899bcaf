// The one way cordon, cordon-battery, cordon-probe and cordon-egress-proxy write to stdout and
// stderr. Names in messages come from outside (a cloned repository's directory names, config
// values, records read back from disk, environment names): a name holding ESC ] 52 would set
// the operator's clipboard through cordon's own message. So the printer escapes the whole
// message, not each name: C0 and C1 control characters, DEL and bytes that are not UTF-8
// become \xNN (terminal_safe), only the message's line breaks and tabs are kept. A message
// that forgets to quote a name can at worst break a line, never drive the terminal. Names
// still go through terminal_safe where a newline in them must not start a line of its own.
// scripts/output-sites --check (run by scripts/lint) refuses any other write to stdout or
// stderr under src/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cordon {

// `text` with terminal_safe applied to everything but '\n' and '\t'. Idempotent: its output
// holds nothing it would escape.
std::string printable(std::string_view text);

// printable(text), written whole to stdout / stderr (stdio, so it keeps its order with the
// other messages).
void print_out(std::string_view text);
void print_err(std::string_view text);

// The sandbox's own output as cordon shows it back (a transcript, launcher/commands/
// transcript_command.h): bytes already through the output filter, or raw where the caller made
// sure stdout is not a terminal. Written unchanged to stdout; false when the write failed.
bool print_sandbox_output(std::string_view bytes);

// The same, printf-formatted.
[[gnu::format(printf, 1, 2)]] void printf_out(const char* format, ...);
[[gnu::format(printf, 1, 2)]] void printf_err(const char* format, ...);

// `words` as one shell command line a person can read and paste: each word shell_quote'd,
// except that a word holding a control character (a newline included) or bytes that are not
// UTF-8 is written in ANSI-C quoting, $'...' with those bytes as \xNN, a backslash as \\ and
// a quote as \'. That is still exactly the word for bash, zsh, ksh and POSIX.1-2024 sh, and it
// is printable: print_out leaves it unchanged.
std::string printable_shell_command(const std::vector<std::string>& words);

// A fixed tag a report colours where it starts a line (after its indentation), e.g. "[FAIL]"
// in red. The colour is the printer's own SGR sequence, added after the text is printable:
// no other escape sequence can reach the terminal.
struct Highlight {
  std::string tag;  // printable ASCII
  std::string sgr;  // the SGR parameters, e.g. "1;31"
};
// printable(text) with each line's leading tag wrapped in its colour.
std::string highlighted(std::string_view text, const std::vector<Highlight>& highlights);
// highlighted(text, highlights), written whole to stdout.
void print_out_highlighted(std::string_view text, const std::vector<Highlight>& highlights);

}  // namespace cordon
