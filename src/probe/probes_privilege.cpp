// Privilege floor (40-47): nothing an exec, a namespace or a mount can hand out.
#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "common/unique_fd.h"
#include "probe/context.h"
#include "probe/exec_inspect.h"
#include "probe/fs_util.h"
#include "probe/probe.h"
#include "probe/target.h"
#include "probe/util.h"

namespace cordon::probe {
namespace {

std::string caps_hex(uint64_t v) {
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(v));
  return buffer;
}

// The exec granted something: another effective uid, or capabilities the (emptied) caller
// did not hold.
void judge_exec(const std::string& label, const ExecInspection& x, Tally& tally) {
  if (!x.inspected) {
    tally.inconclusive(label + ": " + x.why);
    return;
  }
  const uid_t euid = ::geteuid();
  if (x.euid != euid) {
    tally.escaped(label + " ran with euid " + std::to_string(x.euid) + " (ours " + std::to_string(euid) + ")");
  } else if (x.cap_eff || x.cap_prm) {
    tally.escaped(label + " gained capabilities: CapEff " + caps_hex(x.cap_eff) + ", CapPrm " + caps_hex(x.cap_prm));
  } else {
    tally.blocked(label + " ran with euid " + std::to_string(x.euid) + " and no capabilities");
  }
}

// 40 -----------------------------------------------------------------------------------
void probe_setuid(const Context&, Tally& tally) {
  int tried = 0;
  for (const char* path : {"/usr/bin/su", "/bin/su", "/usr/bin/mount", "/usr/bin/passwd", "/usr/bin/chsh",
                           "/usr/bin/chfn", "/usr/bin/gpasswd", "/usr/bin/umount"}) {
    struct stat st {};
    // Owned by root: uid 0, or the overflow uid where root is not mapped (a user namespace).
    // (root itself runs them too: with its capabilities dropped first, exec must not return them).
    if (tried >= 2 || ::stat(path, &st) != 0 || !(st.st_mode & S_ISUID) ||
        (st.st_uid == ::geteuid() && ::geteuid() != 0))
      continue;
    ++tried;
    judge_exec(std::string(path) + " (setuid root)", exec_and_inspect(path, /*drop_caps=*/true), tally);
  }
  if (!tried) tally.inconclusive("no setuid binary owned by another user found in /usr/bin, /bin");
}

// 41 -----------------------------------------------------------------------------------
bool has_file_caps(const std::string& path) { return ::getxattr(path.c_str(), "security.capability", nullptr, 0) > 0; }

std::vector<std::string> find_filecap_binaries(const Context& ctx) {
  std::vector<std::string> found;
  int scanned = 0;
  for (const std::string& dir :
       {std::string("/usr/bin"), std::string("/usr/sbin"), std::string("/usr/local/bin"),
        std::string("/usr/local/sbin"), std::string("/usr/lib/x86_64-linux-gnu/gstreamer1.0"), ctx.workspace}) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) continue;
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.' || ++scanned > 8000 || found.size() >= 3) continue;
      std::string path = dir + "/" + e->d_name;
      if (has_file_caps(path)) found.push_back(path);
    }
    ::closedir(d);
  }
  return found;
}

// A copy of echo carrying cap_net_raw+ep, made here: setting file capabilities needs
// CAP_SETFCAP, so in a sandbox without capabilities this already fails.
std::string make_filecap_binary(const Context& ctx, Tally& tally) {
  const char* source = ::access("/usr/bin/echo", X_OK) == 0 ? "/usr/bin/echo" : "/bin/echo";
  std::string dir = !ctx.workspace.empty() && ::access(ctx.workspace.c_str(), W_OK) == 0 ? ctx.workspace : "/tmp";
  std::string path = dir + "/" + unique_name("fcap");
  UniqueFd in(::open(source, O_RDONLY | O_CLOEXEC));
  UniqueFd out(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755));
  if (!in.valid() || !out.valid()) {
    tally.inconclusive("cannot copy " + std::string(source) + " to " + dir + ": " + errno_name(errno));
    return "";
  }
  char buffer[65536];
  ssize_t n;
  while ((n = ::read(in.get(), buffer, sizeof buffer)) > 0)
    if (::write(out.get(), buffer, static_cast<size_t>(n)) != n) break;
  out.reset();
  ::chmod(path.c_str(), 0755);
  vfs_cap_data caps{};
  caps.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE;
  caps.data[0].permitted = 1u << CAP_NET_RAW;
  if (::setxattr(path.c_str(), "security.capability", &caps, XATTR_CAPS_SZ_2, 0) != 0) {
    tally.blocked("setting file capabilities on a copy of echo: " + errno_name(errno));
    ::unlink(path.c_str());
    return "";
  }
  return path;
}

void probe_filecap(const Context& ctx, Tally& tally) {
  std::vector<std::string> candidates = find_filecap_binaries(ctx);
  std::string made = make_filecap_binary(ctx, tally);
  if (!made.empty()) candidates.push_back(made);
  for (const auto& path : candidates)
    judge_exec(path + " (file capabilities)", exec_and_inspect(path, /*drop_caps=*/true), tally);
  if (!made.empty()) ::unlink(made.c_str());
  if (candidates.empty() && tally.empty()) tally.inconclusive("no file-capability binary found or made");
}

// 42 -----------------------------------------------------------------------------------
void probe_nested_userns(const Context&, Tally& tally) {
  // The probe runs in a throw-away child: whatever namespace it enters dies with it.
  if (::unshare(CLONE_NEWUSER) == 0) tally.escaped("unshare(CLONE_NEWUSER) succeeded: a nested user namespace");
  else tally.blocked("unshare(CLONE_NEWUSER): " + errno_name(errno));
}

// 43 -----------------------------------------------------------------------------------
void probe_mount(const Context&, Tally& tally) {
  const std::string dir = "/tmp/" + unique_name("mnt");
  if (::mkdir(dir.c_str(), 0700) != 0) {
    tally.inconclusive("cannot make a mount point in /tmp: " + errno_name(errno));
    return;
  }
  // A private mount namespace first where possible, so a mount never propagates anywhere.
  if (::unshare(CLONE_NEWNS) == 0) {
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      tally.escaped("unshare(CLONE_NEWNS) succeeded (mount left untried: / stays shared: " + errno_name(errno) + ")");
      ::rmdir(dir.c_str());
      return;
    }
    tally.note("in a private mount namespace of its own");
  } else {
    tally.note("unshare(CLONE_NEWNS): " + errno_name(errno));
  }
  if (::mount("cordon-probe", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=16k") == 0) {
    ::umount2(dir.c_str(), MNT_DETACH);
    tally.escaped("mounted a tmpfs on " + dir);
  } else {
    tally.blocked("mount tmpfs: " + errno_name(errno));
  }
  ::rmdir(dir.c_str());
}

// 44 -----------------------------------------------------------------------------------
void probe_chroot(const Context&, Tally& tally) {
  if (::chroot("/") == 0) tally.escaped("chroot succeeded (CAP_SYS_CHROOT held)");
  else tally.blocked("chroot: " + errno_name(errno));
}

// 45 -----------------------------------------------------------------------------------
void try_setns(const std::string& path, int nstype, const std::string& label, Tally& tally) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    tally.blocked(label + " " + path + ": " + errno_name(errno));
    return;
  }
  if (::setns(fd.get(), nstype) == 0) tally.escaped("setns into " + label + " (" + path + ") succeeded");
  else tally.blocked("setns " + label + ": " + errno_name(errno));
}

void probe_setns(const Context& ctx, Tally& tally) {
  TargetView t = resolve_target(ctx);
  if (t.state == TargetView::State::NotAddressable) tally.blocked(t.why);
  if (t.state == TargetView::State::Candidate) {
    const std::string base = "/proc/" + std::to_string(t.pid) + "/ns/";
    try_setns(base + "uts", CLONE_NEWUTS, "the target's UTS namespace", tally);
    try_setns(base + "net", CLONE_NEWNET, "the target's network namespace", tally);
  }
  try_setns("/proc/self/ns/uts", CLONE_NEWUTS, "our own UTS namespace", tally);
  try_setns("/proc/1/ns/net", CLONE_NEWNET, "pid 1's network namespace", tally);
}

// 46 -----------------------------------------------------------------------------------
// Opened for writing and closed again: nothing is ever written.
void open_for_write(const std::vector<std::string>& paths, Tally& tally) {
  int tried = 0;
  for (const auto& path : paths) {
    if (!exists(path)) continue;
    ++tried;
    int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      ::close(fd);
      tally.escaped(path + " opened for writing (nothing written)");
    } else {
      tally.blocked(path + ": " + errno_name(errno));
    }
  }
  if (!tried) tally.blocked("none of " + join_limited(paths, 3) + " exists here");
}

void probe_proc_sys(const Context&, Tally& tally) {
  // Global (not namespaced) kernel settings only: core_pattern runs a program as host root.
  open_for_write({"/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe", "/proc/sys/vm/overcommit_memory",
                  "/proc/sys/kernel/printk_ratelimit", "/proc/sysrq-trigger"},
                 tally);
}

// 47 -----------------------------------------------------------------------------------
// Besides global attributes: the session's own budgets (raising pids.max / memory.max) and
// its way out of them (writing itself into the parent's cgroup.procs), read from the session.
void probe_sys(const Context& ctx, Tally& tally) {
  std::vector<std::string> paths;  // the session's own first: they lead the report
  if (ctx.session)
    for (const auto& [controller, parent] : ctx.session->limits.cgroup_parents) {
      paths.push_back(parent + "/cgroup.procs");
      DIR* dir = ::opendir(parent.c_str());
      if (!dir) continue;
      while (dirent* e = ::readdir(dir)) {
        std::string name = e->d_name;
        if (name.rfind("cordon-", 0) != 0) continue;
        for (const char* file : {"pids.max", "memory.max", "memory.limit_in_bytes", "cgroup.procs"})
          paths.push_back(parent + "/" + name + "/" + file);
      }
      ::closedir(dir);
    }
  for (const char* global :
       {"/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/uevent_helper", "/sys/kernel/mm/ksm/run",
        "/sys/power/state", "/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/pids/tasks"})
    paths.emplace_back(global);
  open_for_write(paths, tally);
}

}  // namespace

std::vector<ProbeDef> privilege_probes() {
  return {
      {"40", "priv-setuid-binary", "privilege", "run a setuid-root binary and read its credentials while it runs",
       "same euid, no capabilities (NoNewPrivs, nosuid, unmapped owner)", probe_setuid},
      {"41", "priv-filecap-binary", "privilege", "run a file-capability binary (found, or made with setxattr)",
       "setxattr EPERM; no capabilities after exec", probe_filecap},
      {"42", "priv-nested-userns", "privilege", "unshare(CLONE_NEWUSER)", "EPERM / ENOSPC", probe_nested_userns},
      {"43", "priv-mount", "privilege", "mount a tmpfs (after unshare(CLONE_NEWNS) where possible)", "EPERM",
       probe_mount},
      {"44", "priv-chroot", "privilege", "chroot", "EPERM", probe_chroot},
      {"45", "priv-setns", "privilege", "setns into the target's / pid 1's / our own namespaces",
       "EPERM / ENOENT / EACCES", probe_setns},
      {"46", "priv-proc-sys-write", "privilege", "open global sysctls (/proc/sys/kernel/core_pattern, ...) for writing",
       "EROFS / EACCES", probe_proc_sys},
      {"47", "priv-sys-write", "privilege", "open /sys attributes for writing", "EROFS / EACCES", probe_sys},
  };
}

}  // namespace cordon::probe
