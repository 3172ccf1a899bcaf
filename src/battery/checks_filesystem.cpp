// Filesystem checks: fresh /dev and /tmp, empty runtime and secret directories, the writable
// set, the configuration and helpers read-only, system credential files masked, the
// workspace's footholds (git config and hooks, [workspace] protect) read-only.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "battery/check.h"
#include "battery/sys.h"
#include "common/build_config.h"
#include "common/credential_files.h"
#include "common/paths.h"
#include "common/unique_fd.h"

namespace cordon::battery {
namespace {

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

bool ends_with(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

std::string describe(const Mount* m) {
  if (!m) return "no mount";
  return m->fstype + (m->read_only() ? " (read-only)" : "") + " at " + m->mount_point;
}

// An empty runtime/secret directory that cannot fill up from the host: absent, or empty on a
// tmpfs (a host directory bound in is a live view, even while empty).
Outcome empty_private_dir(const Context& c, const std::string& dir) {
  int err = 0;
  auto names = list_dir(dir, &err);
  if (!names) {
    if (err == ENOENT) return pass("absent");
    return fail("cannot list " + dir + ": " + errno_name(err));
  }
  const Mount* m = c.mounts.containing(dir);
  if (!names->empty()) {
    std::sort(names->begin(), names->end());
    return fail(dir + " holds " + join_some(*names) + " (" + describe(m) + ")");
  }
  if (!m || m->fstype != "tmpfs")
    return fail(dir + " is empty but is " + describe(m) +
                ", not a tmpfs: the host's directory, whose "
                "entries would appear live");
  return pass("empty " + describe(m));
}

// Device nodes a fresh bwrap /dev holds (bound from the host's devtmpfs).
bool expected_char_device(const std::string& name) {
  for (const char* n : {"null", "zero", "full", "random", "urandom", "tty", "console", "ptmx"})
    if (name == n) return true;
  return false;
}

// One of the nodes bwrap --dev binds into its fresh /dev (null, zero, tty...), bound from the
// launcher's /dev: the host's devtmpfs, or in a container the engine's /dev tmpfs (Docker and
// podman mknod them there). The node must be the device its name says: it holds no data.
bool dev_node_bind(const Mount& m) {
  static const std::pair<const char*, dev_t> kNodes[] = {
      {"/dev/null", makedev(1, 3)},    {"/dev/zero", makedev(1, 5)},    {"/dev/full", makedev(1, 7)},
      {"/dev/random", makedev(1, 8)},  {"/dev/urandom", makedev(1, 9)}, {"/dev/tty", makedev(5, 0)},
      {"/dev/console", makedev(5, 1)}, {"/dev/ptmx", makedev(5, 2)}};
  struct stat st {};
  if (::lstat(m.mount_point.c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) return false;
  for (const auto& [path, dev] : kNodes)
    if (m.mount_point == path) return st.st_rdev == dev;
  return false;
}

// Filesystems a sandbox creates fresh (nothing of the host's data in them).
bool fresh_kind(const Mount& m) {
  if (m.fstype == "tmpfs" || m.fstype == "ramfs") return true;
  if (m.fstype == "proc") return path_within(m.mount_point, "/proc");
  if (m.fstype == "devpts" || m.fstype == "mqueue") return path_within(m.mount_point, "/dev");
  // bwrap --dev binds single nodes (null, zero, tty...) from the host's devtmpfs; /dev itself is check 10.
  if (m.fstype == "devtmpfs") return path_within(m.mount_point, "/dev");
  return false;
}

// Where a cordon sandbox mounts its own tmpfs.
bool cordon_tmpfs_point(const Context& c, const std::string& point) {
  for (const char* p : {"/tmp", "/run", "/run/user", "/run/secrets", "/run/cordon", "/dev"})
    if (point == p) return true;
  if (point == "/var/tmp" && c.session && c.session->filesystem.view == "system") return true;
  return point == c.home;
}

}  // namespace

Outcome check_fresh_dev(const Context& c) {
  const Mount* m = c.mounts.containing("/dev");
  if (!m) return fail("no mount table");
  if (m->fstype == "devtmpfs")
    return fail("/dev is the host's devtmpfs (one instance per kernel: a bind of the host's /dev)");
  if (m->fstype != "tmpfs" || m->mount_point != "/dev") return fail("/dev is " + describe(m) + ", not a fresh tmpfs");
  std::vector<std::string> extra;
  if (auto names = list_dir("/dev")) {
    std::sort(names->begin(), names->end());
    for (const auto& name : *names) {
      struct stat st {};
      if (::lstat(("/dev/" + name).c_str(), &st) != 0) continue;
      if (S_ISBLK(st.st_mode)) extra.push_back(name + " (block)");
      else if (S_ISCHR(st.st_mode) && !expected_char_device(name)) extra.push_back(name);
    }
  }
  if (!extra.empty()) return fail("host device nodes in /dev: " + join_some(extra));
  return pass("tmpfs with only null, zero, full, random, urandom, tty, pts");
}

Outcome check_private_tmp(const Context& c) {
  const Mount* m = c.mounts.containing("/tmp");
  std::vector<std::string> sockets;
  if (auto names = list_dir("/tmp")) {
    std::sort(names->begin(), names->end());
    for (const auto& name : *names)
      if ((starts_with(name, "vscode-ipc-") || starts_with(name, "vscode-git-")) && ends_with(name, ".sock"))
        sockets.push_back(name);
  }
  if (auto x11 = list_dir("/tmp/.X11-unix"))
    for (const auto& name : *x11) sockets.push_back(".X11-unix/" + name);
  std::string problem;
  if (!m || m->fstype != "tmpfs" || m->mount_point != "/tmp")
    problem = "/tmp is " + describe(m) + ", not its own tmpfs: the host's /tmp is visible";
  if (!sockets.empty())
    problem += (problem.empty() ? "" : "; ") + std::string("host IPC sockets visible: ") + join_some(sockets);
  if (!problem.empty()) return fail(problem);
  return pass("tmpfs, no IDE or X11 sockets");
}

Outcome check_run_user(const Context& c) { return empty_private_dir(c, "/run/user"); }
Outcome check_run_secrets(const Context& c) { return empty_private_dir(c, "/run/secrets"); }

// The workspace the session was promised is one it can write: uid, groups and mount as they are
// here, with no capability (access(2) asks the kernel exactly that). "" when it can.
std::string unwritable_workspace(const Context& c) {
  if (!c.session || c.session->workspace.empty()) return {};
  const std::string& w = c.session->workspace;
  if (::access(w.c_str(), W_OK | X_OK) == 0) return {};
  const int error = errno;
  struct stat st {};
  std::string owner = ::stat(w.c_str(), &st) == 0 ? ", owned by uid " + std::to_string(st.st_uid) : "";
  return "the workspace " + w + " is not writable here (" + std::strerror(error) + owner + ", this process uid " +
         std::to_string(::getuid()) + "): the agent could not edit the project";
}

namespace {

// Whether this process may not reach `path` and cannot make itself able to: a directory on the
// way denies it search (EACCES) and belongs to another uid, so no chmod of this process's can
// open it (one of its own, e.g. in the workspace a session left 000, could).
bool out_of_reach(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 || errno != EACCES) return false;
  std::string dir = "/";
  for (size_t at = 1; at < path.size();) {
    size_t slash = path.find('/', at);
    if (slash == std::string::npos) slash = path.size();
    const std::string next = dir + (dir == "/" ? "" : "/") + path.substr(at, slash - at);
    if (::stat(next.c_str(), &st) != 0) {
      struct stat denying {};
      return errno == EACCES && ::stat(dir.c_str(), &denying) == 0 && denying.st_uid != ::getuid();
    }
    dir = next;
    at = slash + 1;
  }
  return false;
}

// The session's writable paths, each also by its resolved path when that differs.
std::vector<std::string> intended_writable(const Context& c) {
  std::vector<std::string> intended;
  if (c.session)
    for (const auto& w : c.session->writable) {
      intended.push_back(w);
      std::string real = real_path(w);
      if (!real.empty() && real != w) intended.push_back(real);
    }
  return intended;
}

}  // namespace

Outcome check_writable_set(const Context& c) {
  if (std::string problem = unwritable_workspace(c); !problem.empty()) return fail(problem);
  const std::vector<std::string> intended = intended_writable(c);
  const Mount* cwd_mount = c.cwd.empty() ? nullptr : c.mounts.containing(c.cwd);
  std::vector<std::string> unexpected, granted, unreachable;
  size_t fresh = 0;
  for (const Mount* m : c.mounts.visible()) {
    if (m->read_only()) continue;
    if (std::find(intended.begin(), intended.end(), m->mount_point) != intended.end()) {
      granted.push_back(m->mount_point);
      continue;
    }
    // A host mount below an intended path arrives with it (binds are recursive).
    if (std::any_of(intended.begin(), intended.end(),
                    [&](const std::string& w) { return path_within(m->mount_point, w); })) {
      granted.push_back(m->mount_point + " (inside an intended path)");
      continue;
    }
    if (dev_node_bind(*m)) {
      ++fresh;
      continue;
    }
    if (fresh_kind(*m)) {
      // With a session, a tmpfs is expected only where cordon puts one; elsewhere a writable
      // tmpfs could be the host's (/dev/shm, a runtime dir) bound in.
      bool tmp = m->fstype == "tmpfs" || m->fstype == "ramfs";
      if (!c.session || !tmp || cordon_tmpfs_point(c, m->mount_point)) {
        ++fresh;
        continue;
      }
    }
    if (!c.session && m == cwd_mount) {
      granted.push_back(m->mount_point + " (the working directory)");
      continue;
    }
    // bwrap leaves a submount read-write when it may not search the path to remount it (EACCES,
    // e.g. a container store under a 0700 root directory). The kernel then refuses this process
    // the path too, so the mount is not writable here; it is named, not failed.
    if (out_of_reach(m->mount_point)) {
      unreachable.push_back(m->mount_point);
      continue;
    }
    unexpected.push_back(m->mount_point + " (" + m->fstype + ")");
  }
  if (!unexpected.empty())
    return fail("read-write mounts outside the " +
                std::string(c.session ? "intended writable set" : "working directory") + ": " + join_some(unexpected));
  std::string note = "read-write: " + (granted.empty() ? std::string("nothing of the host") : join_some(granted)) +
                     " + " + std::to_string(fresh) + " fresh tmpfs/proc/dev mounts";
  if (!unreachable.empty())
    note += "; read-write but out of this process's reach (search permission denied): " +
            std::to_string(unreachable.size()) + " (" + join_some(unreachable) + ")";
  if (!c.session) note = std::string(kNoSession) + ": judged against the working directory; " + note;
  return pass(note);
}

Outcome check_config_readonly(const Context& c) {
  std::vector<std::string> problems;
  std::string self = real_path("/proc/self/exe");
  std::string helpers = self.substr(0, self.rfind('/'));
  std::string libexec = c.session && !c.session->libexec.empty() ? c.session->libexec : helpers;
  if (exists(libexec) && writable(libexec)) problems.push_back("helper directory " + libexec + " is writable");
  if (!self.empty() && writable(self)) problems.push_back("this battery " + self + " is writable");
  if (c.session) {
    const SessionIntent& s = *c.session;
    if (s.config.path != s.config.fixed_path)
      problems.push_back("the launcher read its configuration from " +
                         (s.config.path.empty() ? std::string("nowhere (built-in defaults)") : s.config.path) +
                         ", not the fixed " + s.config.fixed_path + " (a --config override)");
    if (!s.config.path.empty() && exists(s.config.path) && writable(s.config.path))
      problems.push_back("configuration file " + s.config.path + " is writable here");
    if (writable(c.session_path)) problems.push_back("session file " + c.session_path + " is writable");
  } else {
    std::string fixed = build::kConfigPath;
    if (exists(fixed) && writable(fixed)) problems.push_back("configuration file " + fixed + " is writable here");
  }
  if (!problems.empty()) return fail(join_some(problems));
  if (!c.session)
    return pass(std::string(kNoSession) + ": which configuration the launcher read is unknown; " + helpers +
                " read-only");
  return pass(c.session->config.path + (c.session->config.found ? "" : " (absent: built-in defaults)") + ", " +
              libexec + " read-only");
}

Outcome check_system_masks(const Context&) {
  std::vector<std::string> readable, notes;
  for (const std::string& path : system_credential_files()) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (!fd.valid()) {
      notes.push_back(path + (errno == ENOENT ? " absent" : " unreadable"));
      continue;
    }
    char byte;
    if (::read(fd.get(), &byte, 1) > 0) readable.push_back(path);
  }
  if (!readable.empty()) return fail("host credential files readable: " + join_some(readable));
  return pass(notes.empty() ? "empty" : "empty or " + join_some(notes));
}

}  // namespace cordon::battery

namespace cordon::battery {
namespace {

// Why `path` can be changed from here ("" = it cannot): a file opened for writing, or a file
// created inside a directory; and whether its mount is read-only.
std::string foothold_writable(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "";
  if (S_ISDIR(st.st_mode)) {
    UniqueFd dir(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    const std::string probe = ".cordon-check-29-" + std::to_string(::getpid());
    UniqueFd made(dir.valid()
                      ? ::openat(dir.get(), probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)
                      : -1);
    if (made.valid()) {
      ::unlinkat(dir.get(), probe.c_str(), 0);
      return "a file could be created in it";
    }
  } else {
    // O_APPEND and no write: the file's content is never touched.
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (fd.valid()) return "it opened for writing";
  }
  struct statvfs vfs {};
  if (::statvfs(path.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY) == 0) return "its mount is read-write";
  return "";
}

}  // namespace

Outcome check_footholds_ro(const Context& c) {
  const std::string workspace = c.session ? c.session->workspace : c.cwd;
  std::vector<std::string> paths;
  struct stat st {};
  // The workspace's own repository, whatever the session file says: an unlisted one counts too.
  if (::lstat((workspace + "/.git").c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    paths = {workspace + "/.git/config", workspace + "/.git/hooks"};
  if (c.session)
    for (const auto& p : c.session->workspace_protected)
      if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
  std::vector<std::string> writable_paths;
  size_t present = 0;
  for (const auto& path : paths) {
    if (!exists(path)) continue;
    ++present;
    if (std::string why = foothold_writable(path); !why.empty()) writable_paths.push_back(path + " (" + why + ")");
  }
  if (!writable_paths.empty())
    return fail("writable from inside, so planted code would run on the host later: " + join_some(writable_paths));
  std::string note = present == 0 ? "no .git or protected path in " + workspace
                                  : std::to_string(present) + " path(s) read-only (EROFS)";
  if (!c.session) note = std::string(kNoSession) + ": only " + workspace + "/.git looked at; " + note;
  return pass(note);
}

}  // namespace cordon::battery
