#include "launcher/record/record_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <sstream>

#include "common/error.h"
#include "common/text.h"
#include "common/unique_fd.h"
#include "launcher/inputs/state_dirs.h"

namespace cordon {

std::string transcript_path(const std::string& sessions_dir, const std::string& id) {
  return sessions_dir + "/" + id + ".transcript";
}

std::string review_dir(const std::string& sessions_dir, const std::string& id) {
  return state_dir_of(sessions_dir) + "/reviews/" + id;
}

void require_session_id(const std::string& id) {
  if (!is_session_id(id))
    throw Error("invalid session id " + terminal_safe(id), "use an id from `cordon sessions list`", kExitConfigError);
}

bool is_session_id(const std::string& id) {
  // YYYYMMDDTHHMMSSZ-xxxxxxxx
  if (id.size() != 25 || id[8] != 'T' || id[15] != 'Z' || id[16] != '-') return false;
  for (size_t i = 0; i < id.size(); ++i) {
    if (i == 8 || i == 15 || i == 16) continue;
    unsigned char c = static_cast<unsigned char>(id[i]);
    if (i < 16 ? !std::isdigit(c) : !(std::isdigit(c) || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::vector<std::string> session_ids(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> ids;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return ids;
  while (dirent* entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    std::string id = name.substr(0, name.size() - suffix.size());
    if (is_session_id(id)) ids.push_back(id);
  }
  ::closedir(d);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::optional<std::string> read_record(const std::string& path, std::string* problem) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0) {
    if (problem) *problem = errno_text(path, errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    if (problem) *problem = path + ": not a regular file";
    return std::nullopt;
  }
  if (static_cast<size_t>(st.st_size) > kMaxRecordBytes) {
    if (problem) *problem = path + ": larger than " + std::to_string(kMaxRecordBytes) + " bytes";
    return std::nullopt;
  }
  std::string text;
  char buffer[8192];
  ssize_t n;
  while (text.size() <= kMaxRecordBytes && (n = ::read(fd.get(), buffer, sizeof buffer)) != 0) {
    if (n < 0) {
      if (errno == EINTR) continue;
      if (problem) *problem = errno_text(path, errno);
      return std::nullopt;
    }
    text.append(buffer, static_cast<size_t>(n));
  }
  if (text.size() > kMaxRecordBytes) text.resize(kMaxRecordBytes);
  return text;
}

ParsedRecord parse_record(const std::string& text) {
  ParsedRecord out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::optional<Json> doc = parse_json(line, nullptr);
    if (!doc) continue;
    if (!out.manifest && check_format(*doc, kManifestFormat, kRecordVersion, nullptr)) {
      out.manifest = std::move(doc);
    } else if (check_format(*doc, kReceiptFormat, kRecordVersion, nullptr) && (*doc)["receipt"].is_object()) {
      out.receipt = (*doc)["receipt"];
    }
  }
  return out;
}

}  // namespace cordon
