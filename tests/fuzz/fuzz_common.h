// Shared by the libFuzzer targets: an oracle violation prints what broke and aborts, which
// libFuzzer reports as a crash (and saves the input as an artifact).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace cordon::fuzz {

[[noreturn]] inline void violated(std::string_view target, std::string_view what) {
  std::fprintf(stderr, "fuzz oracle: %.*s: %.*s\n", static_cast<int>(target.size()), target.data(),
               static_cast<int>(what.size()), what.data());
  std::abort();
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Printable form of some bytes for an oracle's message.
inline std::string escaped(std::string_view bytes, size_t max = 200) {
  std::string out;
  for (size_t i = 0; i < bytes.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (bytes.size() > max) out += "...";
  return out;
}

}  // namespace cordon::fuzz

// Checks an oracle; TARGET is the target's name.
#define FUZZ_CHECK(cond, what)                                             \
  do {                                                                     \
    if (!(cond)) ::cordon::fuzz::violated(kFuzzTarget, std::string(what)); \
  } while (0)
