#include "common/text.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>

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

std::string read_text_file(const std::string& path) { return read_file(path, SIZE_MAX).value_or(""); }

std::string trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return std::string(text.substr(begin, text.find_last_not_of(kSpace) - begin + 1));
}

}  // namespace cordon
