#include "probe/fs_util.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>

#include "common/paths.h"
#include "probe/probe.h"
#include "probe/util.h"

namespace cordon::probe {

std::vector<std::string> exposed_paths(const Context& ctx) {
  std::vector<std::string> out;
  if (!ctx.workspace.empty()) out.push_back(ctx.workspace);
  if (!ctx.libexec.empty()) out.push_back(ctx.libexec);
  if (ctx.session) {
    const auto& s = *ctx.session;
    for (const auto& w : s.writable) out.push_back(w);
    if (!s.libexec.empty()) out.push_back(s.libexec);
    for (const auto& e : s.agent.home) out.push_back(s.home.path + "/" + e);
    for (const auto& e : s.home.keep_read_only) out.push_back(s.home.path + "/" + e);
  }
  return out;
}

bool is_exposed(const Context& ctx, const std::string& path) {
  for (const auto& p : exposed_paths(ctx))
    if (path_within(path, p)) return true;
  return false;
}

bool on_tmpfs(const std::string& path) {
  struct statfs fs {};
  return ::statfs(path.c_str(), &fs) == 0 && fs.f_type == TMPFS_MAGIC;
}

int create_and_remove(const std::string& dir, const std::string& name) {
  std::string path = dir + "/" + name;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  ::close(fd);
  ::unlink(path.c_str());
  return 0;
}

int read_attempt(const std::string& path, Tally& tally, const std::string& label) {
  ReadResult r = read_some(path, 256);
  std::string what = label.empty() ? path : label + " " + path;
  if (!r.ok) {
    tally.blocked(what + ": " + errno_name(r.err));
    return r.err;
  }
  if (r.data.empty()) tally.blocked(what + ": empty (masked)");
  else
    tally.escaped(what + ": " + std::to_string(r.data.size()) + (r.data.size() == 256 ? "+" : "") + " bytes readable");
  return 0;
}

}  // namespace cordon::probe
