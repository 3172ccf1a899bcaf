// What the configuration's TOML parser, toml++ 3.3.0 (Debian 12's), must never be given.
// Its whitespace test (is_non_ascii_horizontal_whitespace) reaches `unreachable`, undefined
// behaviour, for most code points of U+00A1..U+0499, U+2C6E..U+3067 and U+FB26..U+FEFE: EF BB
// 80, a byte order mark cut short, is U+FEC0. toml++ asks that test of every character where
// whitespace may come: anywhere outside strings and comments, inside a string that follows a
// value without a separator (its number and date scanners run on into it), and in a multi-line
// basic string right after a backslash or a line-ending backslash. TOML allows no non-ASCII
// character in the first two places, and in the third only after a line-ending backslash.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace cordon {

struct TomlTextProblem {
  size_t line = 1;    // 1-based
  size_t column = 1;  // 1-based, in characters (code points), as toml++ counts them
  std::string what;   // "invalid UTF-8 (byte 0xef)", "U+FEC0 outside a string or a comment", ...
};

// The first place of `text` toml++ 3.3.0 must not read: a byte that does not begin a UTF-8
// sequence, or a non-ASCII character where toml++ tests for whitespace. nullopt: `text` is
// safe to give it (whether it is valid TOML is toml++'s to say). A whole byte order mark at
// the start is UTF-8's own and passes.
std::optional<TomlTextProblem> toml_text_problem(std::string_view text);

// The same scan, and the text toml++ is given when it finds nothing: `text` with the body of
// each comment that stands on a line of its own cut, its '#' and line break kept. toml++ reads
// a comment a character at a time, and the shipped cordon.toml is mostly comments (they cost
// more than the rest of the launcher's configuration work). What toml++ makes of the text is
// the same: only a comment is shortened, nothing follows a comment on its line (no other line
// or column moves), and a body is cut only when toml++ accepts all of it (no control character
// but tab) and a line break ends it.
struct ScannedToml {
  std::optional<TomlTextProblem> problem;
  std::string for_parser;  // without a problem only
};
ScannedToml scan_toml_text(std::string_view text);

}  // namespace cordon
