#include "battery/sys.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "common/unique_fd.h"

namespace cordon::battery {

std::string read_link(const std::string& path, int* err) {
  char buffer[PATH_MAX];
  ssize_t n = ::readlink(path.c_str(), buffer, sizeof buffer - 1);
  if (n < 0) {
    if (err) *err = errno;
    return {};
  }
  return std::string(buffer, static_cast<size_t>(n));
}

std::optional<std::vector<std::string>> list_dir(const std::string& path, int* err) {
  DIR* dir = ::opendir(path.c_str());
  if (!dir) {
    if (err) *err = errno;
    return std::nullopt;
  }
  std::vector<std::string> names;
  while (dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names.emplace_back(e->d_name);
  }
  ::closedir(dir);
  return names;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool writable(const std::string& path) { return ::access(path.c_str(), W_OK) == 0; }

std::string real_path(const std::string& path) {
  char buffer[PATH_MAX];
  if (!::realpath(path.c_str(), buffer)) return {};
  return buffer;
}

unsigned long long ns_inode(const std::string& link_text) {
  auto open = link_text.find(":[");
  if (open == std::string::npos || link_text.back() != ']') return 0;
  return std::strtoull(link_text.c_str() + open + 2, nullptr, 10);
}

std::string join_some(const std::vector<std::string>& items, size_t max) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < max; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > max) out += " and " + std::to_string(items.size() - max) + " more";
  return out;
}

}  // namespace cordon::battery
