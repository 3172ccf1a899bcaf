#include "launcher/inputs/paths.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "common/build_config.h"

namespace cordon {

std::string real_path(const std::string& path) {
  char buffer[PATH_MAX];
  if (::realpath(path.c_str(), buffer) == nullptr) return {};
  return buffer;
}

std::string launcher_dir() {
  std::string exe = real_path("/proc/self/exe");
  return exe.substr(0, exe.rfind('/'));
}

std::string libexec_dir(const std::string& bin_dir) {
  std::string resolved = real_path(bin_dir + "/" + build::kLibexecFromBin);
  return resolved.empty() ? bin_dir + "/" + build::kLibexecFromBin : resolved;
}

std::string doc_dir(const std::string& bin_dir) { return real_path(bin_dir + "/" + build::kDocFromBin); }

std::string system_binary_dirs_text() {
  std::string text;
  for (const char* dir : kSystemBinaryDirs) text += (text.empty() ? "" : ", ") + std::string(dir);
  return text;
}

std::string find_system_binary(const std::string& name) {
  for (const char* dir : kSystemBinaryDirs) {
    std::string candidate = std::string(dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace cordon
