#include "launcher/inputs/toml_text.h"

#include <cctype>
#include <cstdint>
#include <cstdio>

#include "common/text.h"

namespace cordon {
namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

enum class Context { Bare, Comment, Basic, Literal, MultiBasic, MultiLiteral };

struct ScanState {
  Context context = Context::Bare;
  // The last character outside strings and comments other than a space or a tab: a string
  // may start only after a line break, '=', '[', ',', '{' or '.'.
  char last_bare = '\n';
  std::string open;       // the open brackets: 'h' a table header, '[' an array, '{' an inline table
  bool at_value = false;  // the next token is a value (after '=', or '[' or ',' in an array)
  // In a value that starts with a digit or a sign: toml++ reads it (a number, a date, a time)
  // up to the next space, tab, line break, ']', '}', ',' or '#', quotes included. After a
  // date, a space and a digit (a time may follow), it reads the next character whatever it
  // is, then on to the next of those. No string or comment starts there.
  bool number = false;
  bool number_date = false;  // it holds a '-': one space may follow
  bool date_space = false;   // that space came just before
  bool swallow = false;      // the next character is the value's, whatever it is
  bool misplaced = false;    // the current string started where none may (after a value)
  bool escaped = false;      // a basic string's backslash came just before
  bool continuing = false;   // after a multi-line basic string's line-ending backslash, until its next character
  bool line_blank = true;    // only spaces and tabs since the last line break outside strings
  bool own_line = false;     // the current comment is the first thing on its line
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Where a non-ASCII character may not be read by toml++ 3.3.0: why, or nullptr.
const char* non_ascii_problem(const ScanState& s) {
  if (s.context == Context::Comment) return nullptr;
  if (s.context == Context::Bare) return " outside a string or a comment (TOML allows only ASCII there)";
  if (s.misplaced) return " in a string that follows a value without a separator";
  if (s.context != Context::MultiBasic) return nullptr;
  if (s.escaped) return " right after a backslash (not an escape sequence)";
  if (s.continuing)
    return " right after a line-ending backslash, which toml++ 3.3.0 cannot read (write it as \\uXXXX, or "
           "before the backslash)";
  return nullptr;
}

// A run of the quote `q` at `at`, as toml++ reads it: at most five.
size_t quote_run(std::string_view text, size_t at, char q) {
  size_t run = 0;
  while (run < 5 && at + run < text.size() && text[at + run] == q) ++run;
  return run;
}

// Where a value starting with a digit or a sign begins and ends, as toml++ scans it.
void note_number(ScanState& s, char c) {
  if (s.swallow) {
    s.swallow = false;
    return;
  }
  if (s.date_space) {
    s.date_space = false;
    s.swallow = s.number = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (s.number) return;
  }
  if (s.number && c == ' ' && s.number_date) {
    s.number_date = false;
    s.date_space = true;
    return;
  }
  if (std::string_view(" \t\r\n]},#").find(c) != std::string_view::npos) s.number = s.number_date = false;
  else if (!s.number && s.at_value) s.number = std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-';
  if (s.number && c == '-') s.number_date = true;
}

// The brackets, and whether a value or a key comes next: a digit starts a number only where a
// value does (`[9."x"]` is a table's key).
void note_structure(ScanState& s, char c) {
  const char top = s.open.empty() ? '\0' : s.open.back();
  if (c == '[') s.open += (s.last_bare == '\n' && s.open.empty()) || (top == 'h' && s.last_bare == '[') ? 'h' : '[';
  else if (c == '{') s.open += '{';
  else if ((c == ']' || c == '}') && !s.open.empty()) s.open.pop_back();
  const char now = s.open.empty() ? '\0' : s.open.back();
  if (c == ' ' || c == '\t' || c == '\r') return;
  s.at_value = c == '=' || (now == '[' && (c == '[' || c == ',' || c == '\n'));
}

// A character outside strings and comments (or the quote that closed a string).
void note_bare(ScanState& s, char c) {
  note_number(s, c);
  note_structure(s, c);
  if (c != ' ' && c != '\t') s.last_bare = c;
  if (c != ' ' && c != '\t') s.line_blank = c == '\n';
}

void close_string(ScanState& s, char quote) {
  s.context = Context::Bare;
  s.misplaced = false;
  note_bare(s, quote);
}

size_t step_bare(ScanState& s, std::string_view text, size_t at) {
  const char c = text[at];
  if (s.swallow) {  // not a comment or a string: toml++ reads it as the value's
    note_bare(s, c);
    return 1;
  }
  if (c == '#') {
    s.context = Context::Comment;
    s.own_line = s.line_blank;
    s.number = s.number_date = s.date_space = false;
    return 1;
  }
  if (c == '"' || c == '\'') {
    const bool multi = quote_run(text, at, c) >= 3;
    s.misplaced = s.number || std::string_view("\n=[,{.").find(s.last_bare) == std::string_view::npos;
    s.context = c == '"' ? (multi ? Context::MultiBasic : Context::Basic)
                         : (multi ? Context::MultiLiteral : Context::Literal);
    return multi ? 3 : 1;
  }
  note_bare(s, c);
  return 1;
}

size_t step_single_line(ScanState& s, char c, char quote) {
  if (s.escaped) {
    s.escaped = false;
    return 1;
  }
  if (c == quote) close_string(s, quote);
  else if (c == '\n') close_string(s, '\n');  // unterminated: toml++ says so
  else if (c == '\\' && quote == '"') s.escaped = true;
  return 1;
}

size_t step_multi_basic(ScanState& s, std::string_view text, size_t at) {
  const char c = text[at];
  if (s.escaped) {
    s.escaped = false;
    s.continuing = is_space(c);
    return 1;
  }
  if (s.continuing && is_space(c)) return 1;
  s.continuing = false;
  if (c == '\\') {
    s.escaped = true;
    return 1;
  }
  if (c != '"') return 1;
  const size_t run = quote_run(text, at, '"');
  if (run >= 3) close_string(s, '"');
  return run;
}

size_t step_multi_literal(ScanState& s, std::string_view text, size_t at) {
  if (text[at] != '\'') return 1;
  const size_t run = quote_run(text, at, '\'');
  if (run >= 3) close_string(s, '\'');
  return run;
}

// Consumes the ASCII character at `at` (or a run of quotes): how many bytes. Comments are
// read whole (read_comment).
size_t step(ScanState& s, std::string_view text, size_t at) {
  switch (s.context) {
    case Context::Bare: return step_bare(s, text, at);
    case Context::Comment: return 1;
    case Context::Basic: return step_single_line(s, text[at], '"');
    case Context::Literal: return step_single_line(s, text[at], '\'');
    case Context::MultiBasic: return step_multi_basic(s, text, at);
    case Context::MultiLiteral: return step_multi_literal(s, text, at);
  }
  return 1;
}

// Line and column of `at`; everything before it is UTF-8 (the scan got there), and columns
// count characters after the byte order mark, as toml++ does.
TomlTextProblem problem_at(std::string_view text, size_t start, size_t at, std::string what) {
  TomlTextProblem p;
  p.what = std::move(what);
  size_t line_start = start;
  for (size_t i = start; i < at; ++i) {
    if (text[i] != '\n') continue;
    ++p.line;
    line_start = i + 1;
  }
  for (size_t i = line_start; i < at; ++i) p.column += (static_cast<unsigned char>(text[i]) & 0xc0) != 0x80;
  return p;
}

std::string code_point_name(std::string_view sequence) {
  const auto lead = static_cast<unsigned char>(sequence[0]);
  uint32_t code = lead & (0x7f >> sequence.size());
  for (size_t i = 1; i < sequence.size(); ++i) code = (code << 6) | (static_cast<unsigned char>(sequence[i]) & 0x3f);
  char name[16];
  std::snprintf(name, sizeof name, "U+%04X", static_cast<unsigned>(code));
  return name;
}

std::string invalid_byte(unsigned char byte) {
  char text[64];
  std::snprintf(text, sizeof text, "invalid UTF-8 (byte 0x%02x): the file must be UTF-8 text", byte);
  return text;
}

// A comment's body, from just after its '#' up to its line break: toml++ 3.3.0 accepts any
// character there but a control character other than tab (the only non-ASCII ones it refuses,
// surrogates, are not UTF-8: utf8_sequence_length refuses them first).
struct CommentBody {
  static constexpr size_t npos = std::string_view::npos;
  size_t end = 0;         // where the line break starts ('\r' of "\r\n", or '\n'); text.size() at the end
  size_t next = 0;        // the byte after the line break (== end: no line break, the text ends)
  bool plain = true;      // no character toml++ refuses in a comment
  size_t invalid = npos;  // the first byte that begins no UTF-8 sequence
};

CommentBody read_comment(std::string_view text, size_t at) {
  CommentBody c;
  while (at < text.size() && text[at] != '\n') {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte >= 0x20 && byte < 0x7f) {  // most of a comment
      ++at;
      continue;
    }
    if (byte >= 0x80) {
      const size_t length = utf8_sequence_length(text, at);
      if (length == 0) {
        c.invalid = at;
        return c;
      }
      at += length;
      continue;
    }
    const bool line_break = byte == '\r' && at + 1 < text.size() && text[at + 1] == '\n';
    if (!line_break && ((byte < 0x20 && byte != '\t') || byte == 0x7f)) c.plain = false;
    ++at;
  }
  c.end = at > 0 && at < text.size() && text[at - 1] == '\r' ? at - 1 : at;
  c.next = at < text.size() ? at + 1 : at;
  return c;
}

}  // namespace

ScannedToml scan_toml_text(std::string_view text) {
  const size_t start = text.substr(0, kByteOrderMark.size()) == kByteOrderMark ? kByteOrderMark.size() : 0;
  ScanState s;
  ScannedToml out;
  out.for_parser.reserve(text.size());
  size_t kept = 0;  // text[kept, at) is not yet copied to for_parser
  for (size_t at = start; at < text.size();) {
    if (s.context == Context::Comment) {
      const CommentBody c = read_comment(text, at);
      if (c.invalid != CommentBody::npos) {
        out.problem = problem_at(text, start, c.invalid, invalid_byte(static_cast<unsigned char>(text[c.invalid])));
        return out;
      }
      // A comment on a line of its own, ended by a line break that is not the text's last
      // character: toml++ is given its '#' and the line break, nothing between. Nothing follows
      // a comment on its line, so no line or column of anything else moves (toml++ places the
      // end of the text just after its last character), and there is nothing in it to refuse.
      if (s.own_line && c.plain && c.next > c.end && c.next < text.size()) {
        out.for_parser.append(text.substr(kept, at - kept));
        kept = c.end;
      }
      if (c.next > c.end) close_string(s, '\n');
      at = c.next;
      continue;
    }
    const size_t length = utf8_sequence_length(text, at);
    if (length == 0) {
      out.problem = problem_at(text, start, at, invalid_byte(static_cast<unsigned char>(text[at])));
      return out;
    }
    if (length == 1) {
      at += step(s, text, at);
      continue;
    }
    if (const char* why = non_ascii_problem(s)) {
      out.problem = problem_at(text, start, at, code_point_name(text.substr(at, length)) + why);
      return out;
    }
    s.escaped = s.continuing = false;  // an ordinary character of a string
    at += length;
  }
  out.for_parser.append(text.substr(kept));
  return out;
}

std::optional<TomlTextProblem> toml_text_problem(std::string_view text) { return scan_toml_text(text).problem; }

}  // namespace cordon
