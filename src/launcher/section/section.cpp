#include "launcher/section/section.h"

namespace cordon {

std::vector<std::string> DataFiles::add(const std::string& dest, std::string content) {
  int fd = next_fd++;
  files.push_back({dest, std::move(content), fd});
  // Readable by anyone inside, like the files they stand in for (bwrap's default is 0600,
  // which reads as a root-only file to check 30).
  return {"--perms", "0444", "--ro-bind-data", std::to_string(fd), dest};
}

}  // namespace cordon
