#include "probe/util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "common/text.h"

namespace cordon::probe {

ReadResult read_some(const std::string& path, size_t max_bytes) {
  ReadResult r;
  auto data = read_file(path, max_bytes, &r.err);
  r.ok = data.has_value();
  r.data = std::move(data).value_or("");
  return r;
}

std::optional<std::string> read_text(const std::string& path, size_t max_bytes) {
  ReadResult r = read_some(path, max_bytes);
  if (!r.ok) {
    errno = r.err;
    return std::nullopt;
  }
  return r.data;
}

std::optional<std::string> status_field(pid_t pid, const std::string& field) {
  std::string path = pid ? "/proc/" + std::to_string(pid) + "/status" : "/proc/self/status";
  auto text = read_text(path, 16384);
  if (!text) return std::nullopt;
  std::string key = field + ":";
  size_t at = 0;
  while (at < text->size()) {
    size_t end = text->find('\n', at);
    if (end == std::string::npos) end = text->size();
    if (text->compare(at, key.size(), key) == 0) {
      size_t v = at + key.size();
      while (v < end && ((*text)[v] == '\t' || (*text)[v] == ' ')) ++v;
      return text->substr(v, end - v);
    }
    at = end + 1;
  }
  return std::nullopt;
}

namespace {

// The fields of /proc/PID/stat after the command name (which may contain spaces and ')').
std::optional<std::vector<std::string>> stat_fields(pid_t pid) {
  auto text = read_text("/proc/" + std::to_string(pid) + "/stat", 4096);
  if (!text) return std::nullopt;
  size_t close = text->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::vector<std::string> fields;
  size_t at = close + 2;
  while (at < text->size()) {
    size_t end = text->find(' ', at);
    if (end == std::string::npos) end = text->size();
    fields.push_back(text->substr(at, end - at));
    at = end + 1;
  }
  return fields;  // fields[0] is field 3 (state)
}

}  // namespace

std::optional<unsigned long long> proc_starttime(pid_t pid) {
  auto fields = stat_fields(pid);
  if (!fields || fields->size() < 20) return std::nullopt;
  return std::strtoull((*fields)[19].c_str(), nullptr, 10);  // field 22
}

std::optional<pid_t> proc_ppid(pid_t pid) {
  auto fields = stat_fields(pid);
  if (!fields || fields->size() < 2) return std::nullopt;
  return static_cast<pid_t>(std::strtol((*fields)[1].c_str(), nullptr, 10));  // field 4
}

std::vector<pid_t> visible_pids() {
  std::vector<pid_t> pids;
  DIR* dir = ::opendir("/proc");
  if (!dir) return pids;
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    pids.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
    if (pids.size() >= 65536) break;
  }
  ::closedir(dir);
  std::sort(pids.begin(), pids.end());
  return pids;
}

std::string unique_name(const std::string& tag) {
  unsigned char bytes[6] = {};
  if (::getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bytes)) {
    auto t = static_cast<unsigned long>(::time(nullptr)) ^ static_cast<unsigned long>(::getpid());
    std::memcpy(bytes, &t, std::min(sizeof t, sizeof bytes));
  }
  char hex[13];
  for (size_t i = 0; i < 6; ++i) std::snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
  return ".cordon-probe-" + tag + "-" + std::to_string(::getpid()) + "-" + hex;
}

std::string dirname_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string basename_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string join_limited(const std::vector<std::string>& items, size_t limit) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > limit) out += " (+" + std::to_string(items.size() - limit) + " more)";
  return out;
}

std::string printable(const std::string& text, size_t max) {
  std::string out;
  for (char c : text) {
    if (out.size() >= max) {
      out += "...";
      break;
    }
    out += (c >= 0x20 && c < 0x7f) ? c : (c == '\n' ? ' ' : '?');
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

double now_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1000.0 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace cordon::probe
