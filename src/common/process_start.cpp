#include "common/process_start.h"

#include <cstdlib>
#include <sstream>

#include "common/text.h"

namespace cordon {

std::optional<ProcStat> parse_proc_stat(const std::string& text) {
  auto close = text.rfind(')');
  if (close == std::string::npos || close + 2 > text.size()) return std::nullopt;
  std::istringstream fields(text.substr(close + 2));
  ProcStat stat;
  std::string field;
  int i = 3;
  for (; i <= 22 && fields >> field; ++i) {
    if (i == 3) stat.state = field.size() == 1 ? field[0] : '?';
    else if (i == 4) stat.ppid = static_cast<pid_t>(std::atol(field.c_str()));
    else if (i == 5) stat.pgrp = static_cast<pid_t>(std::atol(field.c_str()));
    else if (i == 22) stat.start_ticks = std::atoll(field.c_str());
  }
  if (i <= 22) return std::nullopt;
  return stat;
}

std::optional<ProcStat> read_proc_stat(const std::string& pid) {
  return parse_proc_stat(read_text_file("/proc/" + pid + "/stat"));
}

std::optional<long long> process_start_ticks(const std::string& pid) {
  std::optional<ProcStat> stat = read_proc_stat(pid);
  if (!stat) return std::nullopt;
  return stat->start_ticks;
}

std::string boot_id() { return trim(read_text_file("/proc/sys/kernel/random/boot_id")); }

}  // namespace cordon
