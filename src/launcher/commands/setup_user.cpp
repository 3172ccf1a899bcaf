#include "launcher/commands/setup_user.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <set>
#include <vector>

#include "common/cgroup_delegation.h"
#include "common/error.h"
#include "common/limit_keys.h"
#include "common/mountinfo.h"
#include "common/print.h"
#include "common/text.h"
#include "common/unique_fd.h"
#include "launcher/inputs/cgroup_hierarchy.h"

namespace cordon {
namespace {

// The controllers cordon's budgets use, from the limit table (common/limit_keys.h).
std::set<std::string> budget_controllers() {
  std::set<std::string> out;
  for (const auto& key : kLimitKeys)
    if (key.kind == LimitKind::Cgroup) out.insert(key.controller);
  return out;
}

struct Site {
  cgroup::Version version;
  std::string root;                   // the hierarchy's mount point (its whole tree)
  std::set<std::string> controllers;  // of the budgets' ones, those it carries
};

// Every writable mount of a whole hierarchy that carries a budget controller.
std::vector<Site> budget_sites() {
  std::vector<Site> sites;
  for (const Mount& m : parse_mountinfo(read_text_file("/proc/self/mountinfo"))) {
    if (m.root != "/" || (m.fstype != "cgroup" && m.fstype != "cgroup2")) continue;
    const bool v2 = m.fstype == "cgroup2";
    std::set<std::string> carried;
    const std::set<std::string> listed = v2 ? cgroup::read_controller_list(m.mount_point + "/cgroup.controllers")
                                            : std::set<std::string>{};
    for (const auto& c : budget_controllers())
      if (v2 ? listed.count(c) != 0 : (',' + m.super_opts + ',').find(',' + c + ',') != std::string::npos)
        carried.insert(c);
    if (carried.empty()) continue;
    if (m.read_only())
      throw Error("the cgroup hierarchy at " + m.mount_point + " is mounted read-only (a container?)",
                  "give the container its limits instead (--memory, --pids-limit); no delegation is needed there");
    sites.push_back({v2 ? cgroup::Version::V2 : cgroup::Version::V1, m.mount_point, carried});
  }
  return sites;
}

void make_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    throw Error(errno_text("creating " + dir, errno), "check that the cgroup hierarchy is writable by root");
}

// Gives `file` (when it exists) to the user: cgroupfs checks ownership for every write.
void give(const std::string& file, const passwd& account) {
  if (::chown(file.c_str(), account.pw_uid, account.pw_gid) != 0 && errno != ENOENT)
    throw Error(errno_text("giving " + file + " to " + std::string(account.pw_name), errno), "run as root");
}

void enable_controllers(const std::string& dir, const std::set<std::string>& controllers) {
  for (const auto& c : controllers) {
    const std::string file = dir + "/cgroup.subtree_control";
    if (int err = write_control_file(file, "+" + c))
      throw Error(errno_text("could not enable the " + c + " controller in " + file, err),
                  "no process may live in " + dir + " itself (cgroup v2): move it out, then run this again");
  }
}

// The delegated cgroup(s) of one hierarchy; returns the user's directory.
std::string delegate(const Site& site, const passwd& account) {
  const std::string parent = site.root + "/" + kDelegationParent;
  std::string dir = delegated_cgroup(site.root, account.pw_name);
  if (site.version == cgroup::Version::V2) enable_controllers(site.root, site.controllers);
  make_dir(parent);
  if (site.version == cgroup::Version::V2) enable_controllers(parent, site.controllers);
  make_dir(dir);
  // What the kernel's cgroup delegation model hands to a delegatee: the directory (to make
  // session cgroups in it) and its process lists (to move the user's own processes in).
  for (const char* file : {"", "/cgroup.procs", "/tasks", "/cgroup.subtree_control", "/cgroup.threads"})
    give(dir + file, account);
  if (site.version == cgroup::Version::V2) {
    enable_controllers(dir, site.controllers);
    const std::string login = dir + "/" + kDelegationLoginLeaf;
    make_dir(login);
    for (const char* file : {"", "/cgroup.procs", "/cgroup.threads"}) give(login + file, account);
  }
  return dir;
}

// rmdir from the leaves up; a directory that still holds a session cgroup or a process stays.
void undelegate(const Site& site, const passwd& account, std::vector<std::string>& kept) {
  const std::string dir = delegated_cgroup(site.root, account.pw_name);
  for (const std::string& d : {dir + "/" + kDelegationLoginLeaf, dir})
    if (::rmdir(d.c_str()) != 0 && errno != ENOENT) kept.push_back(errno_text(d, errno));
  ::rmdir((site.root + "/" + kDelegationParent).c_str());  // only when no other user's is left
}

}  // namespace

int setup_user_command(const std::string& user, bool remove) {
  if (::geteuid() != 0)
    throw ConfigError("setup-user changes the host's cgroups, which only root may delegate",
                      "run it as root: sudo cordon setup-user " + shell_quote(user));
  const passwd* account = ::getpwnam(user.c_str());
  if (!account)
    throw ConfigError("no account named " + terminal_safe(user), "create it first (adduser), or check the name");
  if (account->pw_uid == 0)
    throw ConfigError("root needs no delegated cgroup: its launches place budgets in their own cgroup",
                      "name an ordinary user");
  const std::vector<Site> sites = budget_sites();
  if (sites.empty())
    throw Error("no mounted cgroup hierarchy carries the memory or pids controller",
                "mount cgroup2 at /sys/fs/cgroup (or the v1 memory and pids hierarchies)");
  std::vector<std::string> kept;
  std::string v2_dir;
  for (const Site& site : sites) {
    if (remove) {
      undelegate(site, *account, kept);
      continue;
    }
    std::string dir = delegate(site, *account);
    if (site.version == cgroup::Version::V2) v2_dir = dir;
    print_out("delegated " + terminal_safe(dir) + " (cgroup " + cgroup::version_name(site.version) + ") to " +
              terminal_safe(user) + "\n");
  }
  if (remove) {
    for (const auto& k : kept) print_err("cordon: kept " + terminal_safe(k) + "\n");
    if (kept.empty()) print_out("removed the cgroups delegated to " + terminal_safe(user) + "\n");
    return kept.empty() ? kExitSuccess : kExitChecksFailed;
  }
  if (!v2_dir.empty())
    print_out("cgroup v2: " + terminal_safe(user) + "'s shells must start in " + terminal_safe(v2_dir) + "/" +
              kDelegationLoginLeaf +
              " (have the login put them there), or launch through systemd-run --user --scope -p Delegate=yes\n");
  print_out("next: as " + terminal_safe(user) +
            ", cordon doctor shows the budgets held; cgroups live in memory, so "
            "run this again at every boot; undo: cordon setup-user --remove " +
            shell_quote(user) + "\n");
  return kExitSuccess;
}

}  // namespace cordon
