// Small text helpers shared by the launcher and the battery.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cordon {

// POSIX shell single-quoting, only where needed: safe characters pass unquoted.
std::string shell_quote(std::string_view word);
std::string shell_join(const std::vector<std::string>& words);

// The whole content of a file, or "" when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace cordon
