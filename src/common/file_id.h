// A file's identity as the kernel sees it: the same directory bound at two names, reached
// through /proc/self/fd or a symlinked parent, has one identity whatever it is called.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <optional>
#include <string>

namespace cordon {

struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId&) const = default;
};

// stat(2) of `path` (links followed); nullopt when it cannot be read.
inline std::optional<FileId> file_id(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

}  // namespace cordon
