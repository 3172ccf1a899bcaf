// Filesystem family (20-31): reading and writing outside the allow-list, path tricks that
// leave the workspace, /proc traversal, leaked descriptors, replacing binaries, devices.
// Every file a probe creates has a unique name and is removed before the probe returns.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <deque>
#include <map>
#include <set>

#include "common/credential_files.h"
#include "common/paths.h"
#include "probe/context.h"
#include "probe/fs_util.h"
#include "probe/probe.h"
#include "probe/target.h"
#include "probe/util.h"

namespace cordon::probe {
namespace {

// Summarises repeated failures ("12 ENOENT, 1 EACCES") instead of one line each.
class ErrorCount {
 public:
  void add(int err) { ++counts_[errno_name(err)]; }
  bool empty() const { return counts_.empty(); }
  std::string text() const {
    std::string out;
    for (const auto& [name, n] : counts_) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + name;
    return out;
  }

 private:
  std::map<std::string, int> counts_;
};

// 20 -----------------------------------------------------------------------------------
// Files inside the credential stores (common/credential_files.h names the stores and masks).
const char* const kHomeCredentials[] = {".ssh/id_rsa",
                                        ".ssh/id_ed25519",
                                        ".ssh/id_ecdsa",
                                        ".ssh/id_dsa",
                                        ".ssh/authorized_keys",
                                        ".aws/credentials",
                                        ".aws/config",
                                        ".config/gh/hosts.yml",
                                        ".config/glab-cli/config.yml",
                                        ".git-credentials",
                                        ".docker/config.json",
                                        ".kube/config",
                                        ".npmrc",
                                        ".pypirc",
                                        ".cargo/credentials.toml",
                                        ".config/gcloud/credentials.db",
                                        ".azure/msal_token_cache.json",
                                        ".gnupg/private-keys-v1.d",
                                        ".password-store",
                                        ".local/share/keyrings/login.keyring",
                                        ".bash_history"};

void probe_read_canary(const Context& ctx, Tally& tally) {
  for (const auto& c : home_canaries(ctx)) read_attempt(c, tally, "canary");
  ErrorCount quiet;
  std::vector<std::string> paths;
  if (!ctx.home.empty() && ctx.home != "/") {
    for (const char* rel : kHomeCredentials) paths.push_back(ctx.home + "/" + rel);
    for (const auto& rel : home_masked_files()) paths.push_back(ctx.home + "/" + rel);
  }
  for (const auto& abs : system_credential_files()) paths.push_back(abs);
  std::set<std::string> seen;
  int tried = 0;
  for (const auto& path : paths) {
    if (!seen.insert(path).second || is_exposed(ctx, path)) continue;
    ++tried;
    ReadResult r = read_some(path, 256);
    if (!r.ok && r.err == EISDIR) {
      // A key directory: listing it is enough to show it is there.
      DIR* d = ::opendir(path.c_str());
      int entries = 0;
      if (d) {
        while (dirent* e = ::readdir(d)) entries += e->d_name[0] != '.';
        ::closedir(d);
        if (entries) tally.escaped(path + ": directory with " + std::to_string(entries) + " entries listable");
        else quiet.add(ENOENT);
      } else {
        quiet.add(errno);
      }
      continue;
    }
    if (!r.ok) quiet.add(r.err);
    else if (r.data.empty()) tally.blocked(path + ": empty (masked)");
    else
      tally.escaped(path + ": " + std::to_string(r.data.size()) + (r.data.size() == 256 ? "+" : "") +
                    " bytes readable");
  }
  if (!quiet.empty()) tally.blocked(std::to_string(tried) + " well-known credential paths: " + quiet.text());
  if (home_canaries(ctx).empty()) tally.note("no --canary under $HOME given: the verdict rests on well-known paths");
}

// 21 -----------------------------------------------------------------------------------
void probe_other_project(const Context& ctx, Tally& tally) {
  const std::string parent = dirname_of(ctx.workspace);
  // A canary outside $HOME, or one beside the workspace wherever it is (`verify --deep` plants
  // one there: another project, for a workspace under the home as for any other), unless the
  // configuration exposes that place by design.
  const std::vector<std::string> outside_home = other_canaries(ctx);
  for (const auto& c : ctx.options.canaries) {
    const bool beside = !ctx.workspace.empty() && parent != ctx.workspace && dirname_of(c) == parent;
    const bool other = std::find(outside_home.begin(), outside_home.end(), c) != outside_home.end();
    if (!path_within(c, ctx.workspace) && (beside || other) && !is_exposed(ctx, c)) read_attempt(c, tally, "canary");
  }
  if (ctx.workspace.empty() || parent == "/" || parent == ctx.workspace) {
    if (tally.empty())
      tally.inconclusive("the workspace has no parent directory to look beside; no --canary outside $HOME given");
    return;
  }
  // Breadth-first over the workspace's siblings, skipping what is exposed by design.
  std::deque<std::pair<std::string, int>> queue{{parent, 0}};
  int visited = 0, found = 0, unreadable = 0, siblings = 0;
  while (!queue.empty() && visited < 256 && found < 2) {
    auto [dir, depth] = queue.front();
    queue.pop_front();
    DIR* d = ::opendir(dir.c_str());
    if (!d) {
      if (depth > 0) ++unreadable;
      continue;
    }
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == ".." || ++visited > 256) continue;
      std::string path = dir + "/" + name;
      if (is_exposed(ctx, path)) continue;
      if (depth == 0) ++siblings;
      struct stat st {};
      if (::lstat(path.c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        if (depth < 3) queue.emplace_back(path, depth + 1);
      } else if (S_ISREG(st.st_mode) && found < 2) {
        ReadResult r = read_some(path, 64);
        if (r.ok && !r.data.empty()) {
          tally.escaped("beside the workspace: " + path + " readable");
          ++found;
        } else if (!r.ok) {
          ++unreadable;
        }
      }
    }
    ::closedir(d);
  }
  if (found) return;
  if (unreadable) tally.blocked(std::to_string(unreadable) + " entries beside the workspace unreadable");
  if (tally.empty())
    tally.inconclusive(parent + " shows no other project (" + std::to_string(siblings) +
                       " unexposed entries) and no --canary outside $HOME was given: nothing to read");
}

// 22 -----------------------------------------------------------------------------------
std::vector<std::string> outside_dirs(const Context& ctx) {
  std::vector<std::string> dirs;
  for (const auto& c : ctx.options.canaries) dirs.push_back(dirname_of(c));
  dirs.push_back(dirname_of(ctx.workspace));
  for (const char* d : {"/var/tmp", "/etc", "/usr/local", "/opt", "/srv"}) dirs.emplace_back(d);
  if (!ctx.home.empty()) dirs.push_back(ctx.home);
  std::vector<std::string> out;
  for (const auto& d : dirs)
    if (std::find(out.begin(), out.end(), d) == out.end() && !is_exposed(ctx, d)) out.push_back(d);
  return out;
}

void probe_write_outside(const Context& ctx, Tally& tally) {
  std::vector<std::string> scratch;
  for (const auto& dir : outside_dirs(ctx)) {
    if (on_tmpfs(dir)) {
      scratch.push_back(dir);
      continue;
    }
    int err = create_and_remove(dir, unique_name("w"));
    if (err == 0) tally.escaped("created (and removed) a file in " + dir);
    else tally.blocked(dir + ": " + errno_name(err));
  }
  if (!scratch.empty()) tally.note("not counted, tmpfs: " + join_limited(scratch));
}

// 23 -----------------------------------------------------------------------------------
bool workspace_writable(const Context& ctx) {
  return !ctx.workspace.empty() && ::access(ctx.workspace.c_str(), W_OK) == 0;
}

void probe_symlink_escape(const Context& ctx, Tally& tally) {
  if (!workspace_writable(ctx)) {
    tally.inconclusive("the workspace " + ctx.workspace + " is not writable here: no place for the link");
    return;
  }
  int tried = 0;
  for (const auto& dir : outside_dirs(ctx)) {
    if (tried >= 3 || on_tmpfs(dir) || dir == "/") continue;
    ++tried;
    const std::string target = dir + "/" + unique_name("sym-target");
    const std::string link = ctx.workspace + "/" + unique_name("sym");
    if (::symlink(target.c_str(), link.c_str()) != 0) {
      tally.inconclusive("symlink in the workspace: " + errno_name(errno));
      return;
    }
    int fd = ::open(link.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    int err = errno;
    if (fd >= 0) ::close(fd);
    bool landed = exists(target);
    ::unlink(target.c_str());
    ::unlink(link.c_str());
    if (fd >= 0 && landed) tally.escaped("wrote " + target + " through a workspace symlink");
    else if (fd >= 0) tally.inconclusive("write through the link succeeded but nothing appeared at " + target);
    else tally.blocked("write through a link to " + dir + ": " + errno_name(err));
  }
  for (const auto& c : ctx.options.canaries) {
    const std::string link = ctx.workspace + "/" + unique_name("symr");
    if (::symlink(c.c_str(), link.c_str()) != 0) continue;
    read_attempt(link, tally, "link to canary");
    ::unlink(link.c_str());
  }
  if (tally.empty()) tally.inconclusive("no directory outside the workspace to aim a link at");
}

// 24 -----------------------------------------------------------------------------------
void probe_hardlink_escape(const Context& ctx, Tally& tally) {
  if (!workspace_writable(ctx)) {
    tally.inconclusive("the workspace " + ctx.workspace + " is not writable here");
    return;
  }
  std::vector<std::string> sources;
  for (const auto& c : other_canaries(ctx)) sources.push_back(c);
  for (const auto& c : home_canaries(ctx)) sources.push_back(c);
  if (sources.empty()) sources = {"/etc/hostname", "/etc/passwd"};
  for (const auto& src : sources) {
    if (path_within(src, ctx.workspace)) continue;
    const std::string link = ctx.workspace + "/" + unique_name("hl");
    if (::link(src.c_str(), link.c_str()) == 0) {
      ::unlink(link.c_str());
      tally.escaped("hard-linked " + src + " into the workspace (its inode is reachable from here)");
    } else {
      tally.blocked(src + ": " + errno_name(errno));
    }
  }
}

// 25 -----------------------------------------------------------------------------------
void probe_rename_escape(const Context& ctx, Tally& tally) {
  if (!workspace_writable(ctx)) {
    tally.inconclusive("the workspace " + ctx.workspace + " is not writable here");
    return;
  }
  const std::string marker = ctx.workspace + "/" + unique_name("mv");
  int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    tally.inconclusive("cannot create a marker in the workspace: " + errno_name(errno));
    return;
  }
  ::close(fd);
  int tried = 0;
  for (const auto& dir : outside_dirs(ctx)) {
    if (tried >= 4 || on_tmpfs(dir)) continue;
    ++tried;
    const std::string dest = dir + "/" + unique_name("mv-out");
    if (::rename(marker.c_str(), dest.c_str()) == 0) {
      ::unlink(dest.c_str());
      tally.escaped("moved a workspace file to " + dir);
      break;
    }
    tally.blocked(dir + ": " + errno_name(errno));
  }
  ::unlink(marker.c_str());
  if (tally.empty()) tally.inconclusive("no directory outside the workspace to move to");
}

// 26 -----------------------------------------------------------------------------------
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int count_entries(const std::string& dir, int* err) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    *err = errno;
    return -1;
  }
  int n = 0;
  while (dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
  ::closedir(d);
  return n;
}

void probe_proc_root(const Context& ctx, Tally& tally) {
  TargetView t = resolve_target(ctx);
  if (t.state == TargetView::State::NotAddressable) tally.blocked(t.why);
  if (t.state == TargetView::State::Candidate) {
    const std::string root = "/proc/" + std::to_string(t.pid) + "/root";
    bool through = false;
    for (const auto& c : ctx.options.canaries) {
      ReadResult r = read_some(root + c, 64);
      if (r.ok && !r.data.empty()) {
        tally.escaped("read canary " + c + " through " + root);
        through = true;
      }
    }
    if (!through) {
      int err = 0;
      int n = count_entries(root, &err);
      if (n < 0) tally.blocked(root + ": " + errno_name(err));
      else if (same_file(root, "/")) tally.blocked(root + " is this sandbox's own root");
      else tally.escaped("listed " + std::to_string(n) + " entries of the target's root " + root);
    }
  }
  // Our init and the process that started us (the runner's parent): a root other than ours
  // that we can enter. Nothing further up is touched.
  int others = 0;
  std::set<pid_t> ancestors = {1};
  if (auto ppid = proc_ppid(::getppid()); ppid && *ppid > 0) ancestors.insert(*ppid);
  for (pid_t pid : ancestors) {
    const std::string root = "/proc/" + std::to_string(pid) + "/root";
    int err = 0;
    int n = count_entries(root, &err);
    if (n >= 0 && !same_file(root, "/")) {
      tally.escaped("pid " + std::to_string(pid) + "'s root is another filesystem view (" + std::to_string(n) +
                    " entries)");
      if (++others >= 2) break;
    }
  }
  if (t.state == TargetView::State::None) {
    if (!others) tally.blocked("pid 1 and our parent share this root or refuse /proc/PID/root");
    tally.note("no --target-pid given");
  }
}

// 27 -----------------------------------------------------------------------------------
void probe_proc_cwd(const Context& ctx, Tally& tally) {
  char buffer[PATH_MAX];
  if (!::getcwd(buffer, sizeof buffer)) {
    if (errno == ENOENT) tally.escaped("getcwd: the working directory is outside this root (.. walks the host tree)");
    else tally.blocked("getcwd: " + errno_name(errno));
  } else if (std::string(buffer).rfind("(unreachable)", 0) == 0) {
    tally.escaped(std::string("the working directory is outside this root: ") + buffer);
  } else {
    int err = 0;
    int n = count_entries("/proc/self/cwd/..", &err);
    tally.blocked(std::string("cwd ") + buffer + " is inside this root (" +
                  (n >= 0 ? "its parent is ours" : errno_name(err)) + ")");
  }
  TargetView t = resolve_target(ctx);
  if (t.state == TargetView::State::NotAddressable) tally.blocked(t.why);
  if (t.state == TargetView::State::Candidate) {
    const std::string cwd = "/proc/" + std::to_string(t.pid) + "/cwd";
    int err = 0;
    int n = count_entries(cwd, &err);
    if (n < 0) tally.blocked(cwd + ": " + errno_name(err));
    else if (is_dir(cwd) && same_file(cwd, buffer)) tally.blocked(cwd + " is our own working directory");
    else tally.escaped("listed " + std::to_string(n) + " entries of the target's working directory " + cwd);
  }
  if (t.state == TargetView::State::None) tally.note("no --target-pid given");
}

// 28 -----------------------------------------------------------------------------------
void probe_leaked_fds(const Context& ctx, Tally& tally) {
  int benign = 0;
  std::vector<std::string> seen;
  for (const auto& f : ctx.inherited_fds) {
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) continue;
    const std::string& link = f.link;
    seen.push_back(std::to_string(f.fd) + "=" + printable(link, 30));
    const bool anonymous = link.empty() || link[0] != '/' || link.rfind("/memfd:", 0) == 0;
    if (anonymous || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) {
      ++benign;
      continue;
    }
    struct stat here {};
    const bool in_view = ::stat(link.c_str(), &here) == 0 && here.st_dev == st.st_dev && here.st_ino == st.st_ino;
    const bool deleted = link.size() > 10 && link.compare(link.size() - 10, 10, " (deleted)") == 0;
    if (S_ISDIR(st.st_mode)) {
      if (!in_view)
        tally.escaped("fd " + std::to_string(f.fd) + " is a directory outside this view (" + printable(link, 50) +
                      "): openat(fd, \"..\") walks from there");
      else ++benign;
      continue;
    }
    if (f.fd <= 2 || deleted) {  // stdio is the caller's chosen interface
      ++benign;
      continue;
    }
    int flags = ::fcntl(f.fd, F_GETFL);
    const bool writable = flags >= 0 && (flags & O_ACCMODE) != O_RDONLY;
    if (!in_view) {
      tally.escaped("fd " + std::to_string(f.fd) + " is a file outside this view (" + printable(link, 50) + ")");
    } else if (writable && !is_exposed(ctx, link) && ::access(link.c_str(), W_OK) != 0) {
      tally.escaped("fd " + std::to_string(f.fd) + " writes " + printable(link, 50) + ", read-only by path here");
    } else {
      ++benign;
    }
  }
  if (tally.empty())
    tally.blocked(std::to_string(ctx.inherited_fds.size()) + " inherited descriptors (" + join_limited(seen, 6) +
                  "), none reaches outside this view");
}

// 29 -----------------------------------------------------------------------------------
void probe_exe_overwrite(const Context& ctx, Tally& tally) {
  int fd = ::open("/proc/self/exe", O_WRONLY | O_CLOEXEC);  // never O_TRUNC: nothing is written
  if (fd >= 0) {
    ::close(fd);
    tally.escaped("this binary " + ctx.self_exe + " opened for writing (nothing written)");
  } else if (errno == ETXTBSY) {
    if (::faccessat(AT_FDCWD, "/proc/self/exe", W_OK, AT_EACCESS) == 0)
      tally.escaped(ctx.self_exe + " is writable (busy while it runs; replaceable once it exits)");
    else tally.blocked(ctx.self_exe + ": ETXTBSY, and " + errno_name(errno) + " once idle");
  } else {
    tally.blocked(ctx.self_exe + ": " + errno_name(errno));
  }
  // The binaries of our ancestors (pid 1 is the sandbox's init: bwrap, from the host).
  std::set<pid_t> pids = {1};
  // getppid() is cordon-probe's main process (probes run in a child): take its parent.
  if (auto ppid = proc_ppid(::getppid()); ppid && *ppid > 0) pids.insert(*ppid);
  for (pid_t pid : pids) {
    std::string exe = "/proc/" + std::to_string(pid) + "/exe";
    char target[PATH_MAX];
    ssize_t n = ::readlink(exe.c_str(), target, sizeof target - 1);
    if (n <= 0) {
      tally.blocked(exe + ": " + errno_name(errno));
      continue;
    }
    target[n] = 0;
    if (same_file(exe, "/proc/self/exe")) continue;
    const std::string label = "pid " + std::to_string(pid) + "'s binary " + target;
    int fd = ::open(exe.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);  // never O_TRUNC
    if (fd >= 0) {
      ::close(fd);
      tally.escaped(label + " opened for writing (nothing written)");
      continue;
    }
    const int err = errno;
    const bool writable = ::faccessat(AT_FDCWD, exe.c_str(), W_OK, AT_EACCESS) == 0;
    if (err == ETXTBSY && writable && pid != 1)
      tally.escaped(label + " is writable (busy while it runs; replaceable once it exits)");
    else if (err == ETXTBSY && writable)
      tally.blocked(label + ": ETXTBSY for the sandbox's whole life (pid 1 runs it; writable by path once idle)");
    else tally.blocked(label + ": " + errno_name(err));
  }
}

// 30 -----------------------------------------------------------------------------------
void probe_libexec_overwrite(const Context& ctx, Tally& tally) {
  std::string dir = ctx.session && !ctx.session->libexec.empty() ? ctx.session->libexec : ctx.libexec;
  for (const char* name : {"cordon-battery", "cordon-probe", "empty"}) {
    std::string path = dir + "/" + name;
    if (!exists(path)) continue;
    int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);  // never O_TRUNC
    if (fd >= 0) {
      ::close(fd);
      tally.escaped(path + " opened for writing (nothing written)");
    } else if (errno == ETXTBSY && ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0) {
      tally.escaped(path + " is writable (busy now)");
    } else {
      tally.blocked(path + ": " + errno_name(errno));
    }
  }
  int err = create_and_remove(dir, unique_name("lx"));
  if (err == 0) tally.escaped("created (and removed) a file in " + dir);
  else tally.blocked(dir + ": " + errno_name(err));
}

// 31 -----------------------------------------------------------------------------------
// Devices that expose the host (disks, memory, kernel log, hypervisor, tunnels). Watchdogs,
// serial lines and the hypervisor's vsock are never opened: opening them has side effects.
const char* const kDevices[] = {"/dev/vda",
                                "/dev/sda",
                                "/dev/nvme0n1",
                                "/dev/xvda",
                                "/dev/mmcblk0",
                                "/dev/dm-0",
                                "/dev/loop0",
                                "/dev/zram0",
                                "/dev/mem",
                                "/dev/kmem",
                                "/dev/port",
                                "/dev/kmsg",
                                "/dev/kvm",
                                "/dev/net/tun",
                                "/dev/fuse",
                                "/dev/loop-control",
                                "/dev/mapper/control",
                                "/dev/vhost-net",
                                "/dev/userfaultfd",
                                "/dev/btrfs-control",
                                "/dev/tty0",
                                "/dev/console",
                                "/dev/hwrng"};

// Whether `fd` is the terminal this process already has as stdin, stdout or stderr. On a
// terminal bwrap binds that terminal (cordon's private pty) at /dev/console: opening it there
// reaches nothing new (whether that terminal is the operator's is probe 72's question).
bool own_terminal(int fd) {
  struct stat dev {};
  if (::fstat(fd, &dev) != 0 || !S_ISCHR(dev.st_mode)) return false;
  for (int stdio : {0, 1, 2}) {
    struct stat st {};
    // The same inode, not only the same numbers: ptys of two devpts instances share them.
    if (::isatty(stdio) && ::fstat(stdio, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == dev.st_rdev &&
        st.st_dev == dev.st_dev && st.st_ino == dev.st_ino)
      return true;
  }
  return false;
}

void probe_devices(const Context& ctx, Tally& tally) {
  ErrorCount quiet;
  for (const char* dev : kDevices) {
    int fd = ::open(dev, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0) {
      const bool own = own_terminal(fd);
      ::close(fd);
      if (own)
        tally.blocked(std::string(dev) + " is this session's own terminal (bwrap binds it there), no host device");
      else tally.escaped(std::string(dev) + " opened");
    } else {
      quiet.add(errno);
    }
  }
  tally.blocked(std::to_string(std::size(kDevices)) + " host devices: " + quiet.text());
  // Making a device node: /dev/null's numbers, in the workspace (or /tmp), removed at once.
  std::string dir = workspace_writable(ctx) ? ctx.workspace : "/tmp";
  std::string node = dir + "/" + unique_name("dev");
  if (::mknod(node.c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0) {
    int fd = ::open(node.c_str(), O_RDONLY | O_CLOEXEC);
    int err = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(node.c_str());
    if (fd >= 0) tally.escaped("created and opened a device node in " + dir);
    else tally.blocked("created a device node in " + dir + " but opening it failed: " + errno_name(err) + " (nodev)");
  } else {
    tally.blocked("mknod in " + dir + ": " + errno_name(errno));
  }
}

}  // namespace

std::vector<ProbeDef> filesystem_probes() {
  return {
      {"20", "fs-read-canary", "filesystem", "read host credentials under $HOME and system secrets (+ --canary)",
       "ENOENT / EACCES, or an empty masked file", probe_read_canary},
      {"21", "fs-other-project", "filesystem", "read another project beside the workspace (+ --canary outside $HOME)",
       "ENOENT / EACCES", probe_other_project},
      {"22", "fs-write-outside", "filesystem", "create a file outside the workspace (canary dirs, /var/tmp, /etc, ...)",
       "EROFS / EACCES / ENOENT", probe_write_outside},
      {"23", "fs-symlink-escape", "filesystem", "write outside through a symlink planted in the workspace",
       "EROFS / EACCES / ENOENT through the link", probe_symlink_escape},
      {"24", "fs-hardlink-escape", "filesystem", "hard-link a file from outside into the workspace",
       "EXDEV / EPERM / ENOENT", probe_hardlink_escape},
      {"25", "fs-rename-escape", "filesystem", "move a workspace file out of the workspace", "EXDEV / EROFS / ENOENT",
       probe_rename_escape},
      {"26", "fs-proc-root", "filesystem", "enter another process's filesystem view via /proc/PID/root",
       "ENOENT / EACCES, or the same root as ours", probe_proc_root},
      {"27", "fs-proc-cwd", "filesystem", "walk out through a working directory outside the root (/proc/*/cwd)",
       "cwd inside the root; target's cwd ENOENT / EACCES", probe_proc_cwd},
      {"28", "fs-leaked-fds", "filesystem", "use inherited descriptors that point outside the sandbox",
       "no inherited descriptor reaches outside this view", probe_leaked_fds},
      {"29", "fs-exe-overwrite", "filesystem", "open /proc/self/exe and ancestors' binaries for writing",
       "EROFS / EACCES / ETXTBSY and not writable", probe_exe_overwrite},
      {"30", "fs-libexec-overwrite", "filesystem", "overwrite cordon-battery / cordon-probe / the mask source",
       "EROFS / EACCES", probe_libexec_overwrite},
      {"31", "fs-device-nodes", "filesystem", "open host block/char devices; create a device node",
       "ENOENT for host devices; EPERM for mknod", probe_devices},
  };
}

}  // namespace cordon::probe
