// 21: the agent binary the launcher runs is read-only here, and no writable copy of it sits in
// the agent's own read-write home entries (a copy there would outlive the session and could
// be run instead of the read-only one: a persistence foothold).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "battery/check.h"
#include "battery/sys.h"
#include "common/paths.h"
#include "common/unique_fd.h"

namespace cordon::battery {
namespace {

constexpr size_t kMaxScanned = 100000;  // entries walked in the writable home entries
constexpr int kMaxDepth = 24;

struct Target {
  std::string name;  // basename of the binary
  off_t size = 0;
  int fd = -1;  // open for content comparison
};

bool same_content(int a, int b, off_t size) {
  char x[65536], y[65536];
  off_t offset = 0;
  while (offset < size) {
    ssize_t n = ::pread(a, x, sizeof x, offset);
    if (n <= 0) return false;
    ssize_t m = ::pread(b, y, static_cast<size_t>(n), offset);
    if (m != n || std::memcmp(x, y, static_cast<size_t>(n)) != 0) return false;
    offset += n;
  }
  return true;
}

struct Scan {
  const Target& target;
  std::vector<std::string> copies;
  size_t scanned = 0;
  bool truncated = false;
};

void walk(int dir_fd, const std::string& path, int depth, Scan& scan) {
  DIR* dir = ::fdopendir(dir_fd);
  if (!dir) {
    ::close(dir_fd);
    return;
  }
  while (dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    if (++scan.scanned > kMaxScanned) {
      scan.truncated = true;
      break;
    }
    std::string child = path + "/" + e->d_name;
    struct stat st {};
    if (::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (depth >= kMaxDepth) continue;
      int sub = ::openat(::dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (sub >= 0) walk(sub, child, depth + 1, scan);
      continue;
    }
    if (!S_ISREG(st.st_mode)) continue;
    if (scan.target.name == e->d_name) {
      scan.copies.push_back(child + " (same name)");
      continue;
    }
    if (st.st_size != scan.target.size || scan.target.fd < 0) continue;
    UniqueFd fd(::openat(::dirfd(dir), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    if (fd.valid() && same_content(fd.get(), scan.target.fd, st.st_size))
      scan.copies.push_back(child + " (same content)");
  }
  ::closedir(dir);
}

// Installs the vendors unpack inside their own config dir (known footholds).
Outcome known_footholds(const Context& c) {
  std::vector<std::string> found;
  for (const char* rel : {".codex/packages", ".claude/local"}) {
    std::string path = c.home + "/" + rel;
    auto names = list_dir(path);
    if (names && !names->empty() && writable(path)) found.push_back(path);
  }
  if (!found.empty()) return fail("writable agent installs in the home directory: " + join_some(found));
  return pass(std::string(kNoSession) + ": the agent is unknown; no writable .codex/packages or .claude/local");
}

}  // namespace

Outcome check_agent_binary(const Context& c) {
  if (!c.session) return known_footholds(c);
  const SessionIntent& s = *c.session;
  if (s.agent.binary.empty()) return pass("profile " + s.agent.name + " runs no agent binary");

  std::string real = real_path(s.agent.binary);
  if (real.empty()) return fail("agent binary " + s.agent.binary + " is not visible in the sandbox");
  std::vector<std::string> problems;
  if (writable(real)) problems.push_back("agent binary " + real + " is writable");
  const Mount* m = c.mounts.containing(real);
  for (const auto& w : s.writable)
    if (path_within(real, w) || path_within(real, real_path(w)))
      problems.push_back("agent binary " + real + " lies in the writable " + w);
  if (problems.empty() && m && !m->read_only()) {
    // On a read-write mount but not writable by this user: read-only only through permissions.
    problems.push_back("agent binary " + real + " is on a read-write mount (" + m->mount_point + ")");
  }

  Target target;
  target.name = real.substr(real.rfind('/') + 1);
  UniqueFd binary(::open(real.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (binary.valid() && ::fstat(binary.get(), &st) == 0) {
    target.size = st.st_size;
    target.fd = binary.get();
  }
  Scan scan{target, {}, 0, false};
  for (const auto& entry : s.agent.home) {
    std::string path = s.home.path + "/" + entry;
    struct stat es {};
    if (::lstat(path.c_str(), &es) != 0 || !writable(path)) continue;
    if (S_ISDIR(es.st_mode)) {
      int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (fd >= 0) walk(fd, path, 0, scan);
    } else if (S_ISREG(es.st_mode) && entry.substr(entry.rfind('/') + 1) == target.name) {
      scan.copies.push_back(path + " (same name)");
    }
  }
  if (!scan.copies.empty())
    problems.push_back("writable copy of the agent binary in its home entries: " + join_some(scan.copies));
  if (scan.truncated)
    problems.push_back("scan of the writable home entries stopped after " + std::to_string(kMaxScanned) +
                       " entries: no copy ruled out");
  if (!problems.empty()) return fail(join_some(problems));
  return pass(real + " read-only; " + std::to_string(scan.scanned) + " entries of the writable home entries scanned");
}

}  // namespace cordon::battery
