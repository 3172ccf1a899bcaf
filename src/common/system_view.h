// The system view, once for the launcher that builds it and battery check 29 that measures it:
// which top-level host directories the sandbox's root is made of, and which representative
// host paths must then be absent.
#pragma once

#include <sys/stat.h>

#include <string>
#include <vector>

namespace cordon {

// Bound read-only when the host has them (a usr-merge link such as /bin -> usr/bin becomes
// the same link inside). /etc gets the credential masks; /sys is kept because tools read the
// CPU count and cgroup limits there (docs/exposed.md). Everything else of / is absent unless
// [filesystem] read adds it; /dev, /proc, /tmp, /var/tmp and /run are fresh.
inline const std::vector<std::string>& system_view_roots() {
  static const std::vector<std::string> roots = {"/usr",   "/bin",    "/sbin", "/lib", "/lib32",
                                                 "/lib64", "/libx32", "/etc",  "/sys"};
  return roots;
}

// Host paths the system view leaves out: other homes, root's home, service data, mounts,
// package and service state (cordon's own session records among them), boot files. The
// check stats each one that is not on the way to something the session binds.
inline const std::vector<std::string>& system_view_absent_paths() {
  static const std::vector<std::string> paths = {
      "/home",        "/root",    "/srv",        "/mnt",       "/media",          "/opt",
      "/boot",        "/var/lib", "/var/log",    "/var/cache", "/var/mail",       "/var/spool",
      "/var/backups", "/var/www", "/lost+found", "/snap",      "/var/lib/cordon", "/builds"};
  return paths;
}

// Other users can read neither it nor (a directory) into it: what only its owner (root, for
// /etc's) may read. The launcher masks these for a root launch; check 30 looks for any left.
inline bool others_cannot_read(mode_t mode) {
  if (S_ISDIR(mode)) return (mode & S_IROTH) == 0 || (mode & S_IXOTH) == 0;
  return (mode & S_IROTH) == 0;
}

}  // namespace cordon
