#include "common/proc_maps.h"

#include <dirent.h>

#include <cctype>
#include <cstring>
#include <fstream>

namespace cordon {
namespace {

constexpr size_t kMaxProcesses = 4096;
constexpr size_t kMaxMappings = 20000;

}  // namespace

std::string executable_mapping_path(const std::string& line) {
  // address perms offset dev inode [path]; the path is the rest after the fifth field.
  size_t at = 0;
  std::string perms;
  for (int field = 0; field < 5; ++field) {
    at = line.find_first_not_of(' ', at);
    if (at == std::string::npos) return "";
    size_t end = line.find(' ', at);
    if (field == 1) perms = line.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (end == std::string::npos) return "";
    at = end;
  }
  at = line.find_first_not_of(' ', at);
  if (at == std::string::npos || perms.size() < 3 || perms[2] != 'x') return "";
  std::string path = line.substr(at);
  if (path.empty() || path[0] != '/') return "";
  const std::string deleted = " (deleted)";
  if (path.size() > deleted.size() && path.compare(path.size() - deleted.size(), deleted.size(), deleted) == 0)
    return "";
  return path;
}

MappedExecutables mapped_executables() {
  MappedExecutables out;
  DIR* proc = ::opendir("/proc");
  if (!proc) {
    out.truncated = true;
    return out;
  }
  size_t processes = 0, mappings = 0;
  while (dirent* e = ::readdir(proc)) {
    if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
    if (++processes > kMaxProcesses) {
      out.truncated = true;
      break;
    }
    std::ifstream maps(std::string("/proc/") + e->d_name + "/maps");
    std::string line;
    while (std::getline(maps, line)) {
      std::string path = executable_mapping_path(line);
      if (path.empty()) continue;
      if (++mappings > kMaxMappings) {
        out.truncated = true;
        ::closedir(proc);
        return out;
      }
      out.files.insert(path);
    }
  }
  ::closedir(proc);
  return out;
}

}  // namespace cordon
