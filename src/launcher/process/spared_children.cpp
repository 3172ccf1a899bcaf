#include "launcher/process/spared_children.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "common/text.h"

namespace cordon {
namespace {

// One launcher, one thread: a plain list.
std::vector<pid_t>& spared() {
  static std::vector<pid_t> pids;
  return pids;
}

}  // namespace

void spare_child(pid_t pid) { spared().push_back(pid); }

void unspare_child(pid_t pid) { spared().erase(std::remove(spared().begin(), spared().end(), pid), spared().end()); }

bool is_spared_child(pid_t pid) { return std::find(spared().begin(), spared().end(), pid) != spared().end(); }

std::vector<pid_t> children_of_this_process() {
  std::vector<pid_t> out;
  const std::string self = std::to_string(::getpid());
  // The launcher is single-threaded: its one task's children are all of them.
  if (std::optional<std::string> list = read_file("/proc/self/task/" + self + "/children", 1 << 20)) {
    std::istringstream in(*list);
    for (long pid = 0; in >> pid;) out.push_back(static_cast<pid_t>(pid));
    return out;
  }
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  while (const dirent* entry = ::readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    const std::string stat = read_text_file(std::string("/proc/") + entry->d_name + "/stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string state, ppid;
    fields >> state >> ppid;
    if (ppid == self) out.push_back(static_cast<pid_t>(std::stol(entry->d_name)));
  }
  ::closedir(proc);
  return out;
}

}  // namespace cordon
