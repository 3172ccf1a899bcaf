#include "common/text.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "common/unique_fd.h"

namespace cordon {

std::string shell_quote(std::string_view word) {
  bool safe = !word.empty();
  for (char c : word) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              std::string_view("@%_+=:,./-").find(c) != std::string_view::npos;
    safe = safe && ok;
  }
  if (safe) return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string shell_join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + shell_quote(w);
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

std::optional<std::string> read_file(const std::string& path, size_t limit, int* err) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) {
    if (err) *err = errno;
    return std::nullopt;
  }
  std::string text;
  char buffer[8192];
  while (text.size() < limit) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (err) *err = errno;
      return std::nullopt;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  if (text.size() > limit) text.resize(limit);
  return text;
}

std::optional<std::string> read_regular_file(const std::string& path, size_t limit, struct stat* st, int* err) {
  int ignored = 0;
  int& error = err ? *err : ignored;
  struct stat own {};
  struct stat& info = st ? *st : own;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid() || ::fstat(fd.get(), &info) != 0) {
    error = errno;
    return std::nullopt;
  }
  if (!S_ISREG(info.st_mode)) {
    error = EINVAL;
    return std::nullopt;
  }
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = errno;
      return std::nullopt;
    }
    if (n == 0) return text;
    if (text.size() + static_cast<size_t>(n) > limit) {
      error = EFBIG;
      return std::nullopt;
    }
    text.append(buffer, static_cast<size_t>(n));
  }
}

std::string read_text_file(const std::string& path) { return read_file(path, SIZE_MAX).value_or(""); }

std::string write_all(int fd, std::string_view bytes, const std::string& context) {
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string reason = n < 0 ? std::strerror(errno) : "short write";
      return context + ": " + reason + " (" + std::to_string(written) + " of " + std::to_string(bytes.size()) +
             " bytes written)";
    }
    written += static_cast<size_t>(n);
  }
  return "";
}

int write_control_file(const std::string& path, std::string_view value) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return errno;
  ssize_t n;
  do n = ::write(fd.get(), value.data(), value.size());
  while (n < 0 && errno == EINTR);
  if (n < 0) return errno;
  return static_cast<size_t>(n) == value.size() ? 0 : EIO;
}

namespace {

template <typename T>
std::optional<T> parse_decimal(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  // from_chars takes no '+' and no space; a '-' only for a signed T.
  if (text.empty() || text[0] == '+') return std::nullopt;
  auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<unsigned long long> parse_unsigned(std::string_view text) {
  return parse_decimal<unsigned long long>(text);
}

std::optional<long long> parse_signed(std::string_view text) { return parse_decimal<long long>(text); }

std::string trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return std::string(text.substr(begin, text.find_last_not_of(kSpace) - begin + 1));
}

size_t utf8_sequence_length(std::string_view text, size_t at) {
  if (at >= text.size()) return 0;
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(at);
  size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xe ? 3 : (lead >> 3) == 0x1e ? 4 : 0;
  if (length == 0 || at + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i)
    if ((byte(at + i) & 0xc0) != 0x80) return 0;
  uint32_t code = length == 1 ? lead : lead & (0x7f >> length);
  for (size_t i = 1; i < length; ++i) code = (code << 6) | (byte(at + i) & 0x3f);
  static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kSmallest[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    // A run of printable ASCII (most of any text) is copied whole, not a character at a time.
    size_t run = at;
    while (run < text.size() && text[run] >= 0x20 && text[run] < 0x7f) ++run;
    if (run > at) {
      out.append(text.substr(at, run - at));
      at = run;
      continue;
    }
    size_t length = utf8_sequence_length(text, at);
    const auto lead = static_cast<unsigned char>(text[at]);
    // C0 controls and DEL; U+0080..U+009F (C1, encoded C2 80..C2 9F); malformed bytes.
    bool control = length == 1 ? (lead < 0x20 || lead == 0x7f)
                               : length == 2 && lead == 0xc2 && static_cast<unsigned char>(text[at + 1]) < 0xa0;
    if (length == 0 || control) {
      size_t escaped = length == 0 ? 1 : length;
      for (size_t i = 0; i < escaped; ++i) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(text[at + i]));
        out += hex;
      }
      at += escaped;
      continue;
    }
    out.append(text.substr(at, length));
    at += length;
  }
  return out;
}

}  // namespace cordon
