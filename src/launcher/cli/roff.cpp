#include "launcher/cli/roff.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "common/build_config.h"
#include "common/text.h"

namespace cordon {
namespace {

// The code point of the UTF-8 sequence of `length` bytes at `text[at]`.
unsigned code_point(std::string_view text, size_t at, size_t length) {
  static constexpr unsigned kLeadMask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
  unsigned point = static_cast<unsigned char>(text[at]) & kLeadMask[length];
  for (size_t i = 1; i < length; ++i) point = (point << 6) | (static_cast<unsigned char>(text[at + i]) & 0x3f);
  return point;
}

// Escapes one piece of `text` that is not at a line's start in the output.
void append_escaped(std::string& out, std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c == '.' || c == '\'') && (out.empty() || out.back() == '\n')) out += "\\&";
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else if (c < 0x80) out += static_cast<char>(c);
    if (c < 0x80) {
      ++i;
      continue;
    }
    // Outside ASCII: the character by its code point; a byte that starts none as '?'.
    const size_t length = utf8_sequence_length(text, i);
    char buffer[16] = "?";
    if (length) std::snprintf(buffer, sizeof buffer, "\\[u%04X]", code_point(text, i, length));
    out += buffer;
    i += length ? length : 1;
  }
}

}  // namespace

std::string roff_escape(std::string_view text) {
  std::string out;
  append_escaped(out, text);
  return out;
}

std::string roff_from_markdown(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '`' || text.substr(i, 2) == "**") {
      const std::string_view mark = text[i] == '`' ? "`" : "**";
      const size_t end = text.find(mark, i + mark.size());
      if (end != std::string_view::npos) {
        out += "\\fB";
        append_escaped(out, text.substr(i + mark.size(), end - i - mark.size()));
        out += "\\fR";
        i = end + mark.size();
        continue;
      }
    }
    if (text[i] == '[') {
      const size_t close = text.find("](", i);
      const size_t end = close == std::string_view::npos ? close : text.find(')', close);
      if (end != std::string_view::npos && text.substr(i, close - i).find('\n') == std::string_view::npos) {
        out += roff_from_markdown(text.substr(i + 1, close - i - 1));
        i = end + 1;
        continue;
      }
    }
    // Plain text up to the next possible mark (a UTF-8 sequence never holds one).
    const size_t next = std::min(text.find_first_of("`*[", i + 1), text.size());
    append_escaped(out, text.substr(i, next - i));
    i = next;
  }
  return out;
}

std::string roff_title(const std::string& name, int section, const std::string& manual) {
  std::string upper;
  for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return ".TH " + roff_escape(upper) + " " + std::to_string(section) + " \"\" \"cordon " + build::kVersion + "\" \"" +
         manual + "\"\n";
}

std::string roff_paragraph(std::string_view text) {
  std::string joined(text);
  for (char& c : joined)
    if (c == '\n') c = ' ';
  return roff_escape(trim(joined)) + "\n";
}

}  // namespace cordon
