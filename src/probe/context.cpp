#include "probe/context.h"

#include <dirent.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "common/paths.h"
#include "probe/util.h"

extern char** environ;

namespace cordon::probe {
namespace {

std::vector<InheritedFd> snapshot_fds() {
  std::vector<InheritedFd> fds;
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return fds;
  const int own = ::dirfd(dir);
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    int fd = std::atoi(e->d_name);
    if (fd == own) continue;
    char link[PATH_MAX];
    std::string path = std::string("/proc/self/fd/") + e->d_name;
    ssize_t n = ::readlink(path.c_str(), link, sizeof link - 1);
    InheritedFd item;
    item.fd = fd;
    if (n > 0) item.link.assign(link, static_cast<size_t>(n));
    fds.push_back(item);
    if (fds.size() >= 1024) break;
  }
  ::closedir(dir);
  return fds;
}

}  // namespace

Context make_context(Options options) {
  Context ctx;
  ctx.inherited_fds = snapshot_fds();  // before anything else opens a descriptor
  ctx.options = std::move(options);
  ctx.uid = ::getuid();
  ctx.euid = ::geteuid();
  ctx.gid = ::getgid();
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    size_t eq = kv.find('=');
    if (eq != std::string::npos) ctx.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (auto home = ctx.env.find("HOME"); home != ctx.env.end()) ctx.home = home->second;

  if (auto text = read_text(kSessionFilePath, 1 << 20)) {
    std::string problem;
    ctx.session = parse_session(*text, &problem);
  }
  char buffer[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n > 0) ctx.self_exe.assign(buffer, static_cast<size_t>(n));
  ctx.libexec = dirname_of(ctx.self_exe);
  if (ctx.session && !ctx.session->workspace.empty()) {
    ctx.workspace = ctx.session->workspace;
  } else if (::getcwd(buffer, sizeof buffer)) {
    ctx.workspace = buffer;
  }
  return ctx;
}

std::vector<std::string> home_canaries(const Context& ctx) {
  std::vector<std::string> out;
  for (const auto& c : ctx.options.canaries)
    if (path_within(c, ctx.home) && ctx.home != "/") out.push_back(c);
  return out;
}

std::vector<std::string> other_canaries(const Context& ctx) {
  std::vector<std::string> out;
  for (const auto& c : ctx.options.canaries)
    if (!(path_within(c, ctx.home) && ctx.home != "/")) out.push_back(c);
  return out;
}

}  // namespace cordon::probe
