#include "common/process_start.h"

#include <cstdlib>
#include <sstream>

#include "common/text.h"

namespace cordon {

std::optional<long long> process_start_ticks(const std::string& pid) {
  const std::string stat = read_text_file("/proc/" + pid + "/stat");
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 > stat.size()) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) return std::atoll(field.c_str());
  return std::nullopt;
}

std::string boot_id() { return trim(read_text_file("/proc/sys/kernel/random/boot_id")); }

}  // namespace cordon
