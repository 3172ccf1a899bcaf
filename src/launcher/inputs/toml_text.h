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

}  // namespace cordon
