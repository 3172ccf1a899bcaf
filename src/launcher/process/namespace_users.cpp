#include "launcher/process/namespace_users.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <vector>

#include "common/unique_fd.h"
#include "launcher/process/pidfd.h"

namespace cordon {
namespace {

std::string comm_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

}  // namespace

std::string processes_left_in_namespace(dev_t dev, ino_t ino, int timeout_ms) {
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  if (!proc) return "cannot read /proc to check the namespace";
  int scanned = 0;
  while (dirent* entry = ::readdir(proc)) {
    if (++scanned > 1000000) break;  // bounded even on a pathological /proc
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    struct stat st {};
    std::string path = std::string("/proc/") + entry->d_name + "/ns/net";
    if (::stat(path.c_str(), &st) == 0 && st.st_dev == dev && st.st_ino == ino)
      found.push_back(static_cast<pid_t>(std::atol(entry->d_name)));
  }
  ::closedir(proc);
  std::string left;
  for (pid_t pid : found) {
    UniqueFd pidfd(pidfd_open(pid));
    if (!pidfd.valid() || wait_exiting(pidfd.get(), pid, timeout_ms)) continue;
    left += (left.empty() ? "" : " ") + std::to_string(pid) + " (" + comm_of(pid) + ")";
  }
  return left;
}

void append_namespace_leftovers(dev_t dev, ino_t ino, std::string& problems) {
  if (ino == 0) return;
  const std::string pids = processes_left_in_namespace(dev, ino, 2000);
  if (pids.empty()) return;
  problems += std::string(problems.empty() ? "" : "; ") + "processes still in the sandbox's network namespace: " + pids;
}

}  // namespace cordon
