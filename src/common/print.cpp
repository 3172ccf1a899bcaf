#include "common/print.h"

#include <cstdarg>
#include <cstdio>

#include "common/text.h"

namespace cordon {
namespace {

void write_whole(std::FILE* stream, std::string_view text) {
  // Nothing to do about a failed write: the message had nowhere else to go.
  (void)std::fwrite(text.data(), 1, text.size(), stream);
}

std::string vformat(const char* format, std::va_list args) {
  std::va_list again;
  va_copy(again, args);
  const int length = std::vsnprintf(nullptr, 0, format, again);
  va_end(again);
  if (length <= 0) return {};
  std::string out(static_cast<size_t>(length) + 1, '\0');
  std::vsnprintf(out.data(), out.size(), format, args);
  out.resize(static_cast<size_t>(length));
  return out;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t begin = 0;
  for (size_t at = 0; at <= text.size(); ++at) {
    if (at < text.size() && text[at] != '\n' && text[at] != '\t') continue;
    out += terminal_safe(text.substr(begin, at - begin));
    if (at < text.size()) out += text[at];
    begin = at + 1;
  }
  return out;
}

std::string printable_shell_command(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) {
    if (!out.empty()) out += ' ';
    if (terminal_safe(word) == word) {
      out += shell_quote(word);
      continue;
    }
    out += "$'";
    for (size_t at = 0; at < word.size();) {
      const size_t length = utf8_sequence_length(word, at);
      if (length == 1 && word[at] == '\\') out += "\\\\";
      else if (length == 1 && word[at] == '\'') out += "\\'";
      else if (length > 0 && terminal_safe(word.substr(at, length)) == word.substr(at, length))
        out.append(word, at, length);
      else out += terminal_safe(word.substr(at, length == 0 ? 1 : length));  // \xNN per byte
      at += length == 0 ? 1 : length;
    }
    out += "'";
  }
  return out;
}

void print_out(std::string_view text) { write_whole(stdout, printable(text)); }

void print_err(std::string_view text) { write_whole(stderr, printable(text)); }

bool print_sandbox_output(std::string_view bytes) {
  return std::fwrite(bytes.data(), 1, bytes.size(), stdout) == bytes.size() && std::fflush(stdout) == 0;
}

void printf_out(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  const std::string text = vformat(format, args);
  va_end(args);
  print_out(text);
}

void printf_err(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  const std::string text = vformat(format, args);
  va_end(args);
  print_err(text);
}

std::string highlighted(std::string_view text, const std::vector<Highlight>& highlights) {
  const std::string safe = printable(text);
  std::string out;
  size_t begin = 0;
  while (begin < safe.size()) {
    size_t end = safe.find('\n', begin);
    end = end == std::string::npos ? safe.size() : end + 1;
    std::string_view line(safe.data() + begin, end - begin);
    const size_t indent = line.find_first_not_of(' ');
    const Highlight* found = nullptr;
    for (const auto& h : highlights)
      if (indent != std::string_view::npos && line.substr(indent).starts_with(h.tag)) found = &h;
    if (found)
      out.append(line.substr(0, indent))
          .append("\033[" + found->sgr + "m" + found->tag + "\033[0m")
          .append(line.substr(indent + found->tag.size()));
    else out.append(line);
    begin = end;
  }
  return out;
}

void print_out_highlighted(std::string_view text, const std::vector<Highlight>& highlights) {
  write_whole(stdout, highlighted(text, highlights));
}

}  // namespace cordon
