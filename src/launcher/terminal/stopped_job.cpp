#include "launcher/terminal/stopped_job.h"

#include <dirent.h>

#include <optional>
#include <string>

#include "common/process_start.h"

namespace cordon::terminal {

bool group_has_stopped_process(pid_t pgrp) {
  if (pgrp <= 0) return false;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return false;
  bool stopped = false;
  while (const dirent* entry = ::readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::optional<ProcStat> stat = read_proc_stat(name);
    if (stat && stat->pgrp == pgrp && stat->state == 'T') {
      stopped = true;
      break;
    }
  }
  ::closedir(proc);
  return stopped;
}

bool is_session_group(pid_t pgrp, pid_t session_leader) {
  if (pgrp <= 0 || session_leader <= 0) return false;
  if (pgrp == session_leader) return true;
  const std::optional<ProcStat> leader = read_proc_stat(std::to_string(pgrp));
  return leader && leader->ppid == session_leader;
}

}  // namespace cordon::terminal
