#include "cgroup_scope.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "common/mountinfo.h"
#include "support.h"

namespace cordon::testing {

std::optional<cgroup::Budget> root_budget_site(const std::string& key, long long value) {
  // Where a scope of the tests' own can go: the test process's cgroup is shared (v2 could not
  // hand controllers down from it), but the launches run in a fresh scope made beside it.
  std::vector<cgroup::Hierarchy> hierarchies = cgroup::gather_hierarchies();
  for (auto& h : hierarchies) h.other_members = 0;
  cgroup::Placement placed = cgroup::place_budget(hierarchies, key, value, 0, "root");
  if (std::getenv("CORDON_EXPECT_CGROUP_V2") && (!placed.why_not.empty() || placed.budget.version != cgroup::Version::V2))
    ADD_FAILURE() << "expected a cgroup v2 home for " << key << ": " << placed.why_not;
  if (!placed.why_not.empty()) return std::nullopt;
  return placed.budget;
}

LaunchScope::LaunchScope(const cgroup::Budget& site, const Identity& owner, bool enable_for_children) {
  static int counter = 0;
  std::string base = site.parent_dir;
  if (site.version == cgroup::Version::V2) base = base.substr(0, base.rfind('/'));
  dir_ = base + "/cordon-test-scope-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
  std::filesystem::create_directory(dir_);
  if (enable_for_children && site.version == cgroup::Version::V2)
    write_file(dir_ + "/cgroup.subtree_control", "+" + site.controller);
  chown_tree(dir_, owner.uid, owner.gid);
}

LaunchScope::~LaunchScope() {
  // The scope empties as its last process is reaped: retry briefly.
  for (int attempt = 0; attempt < 400 && ::rmdir(dir_.c_str()) != 0 && errno == EBUSY; ++attempt) ::usleep(5000);
}

std::string LaunchScope::leftovers() const {
  std::string out;
  for (const auto& entry : std::filesystem::directory_iterator(dir_))
    if (entry.is_directory()) out += "child " + entry.path().filename().string() + "; ";
  std::string enabled = path_exists(dir_ + "/cgroup.subtree_control") ? read_file(dir_ + "/cgroup.subtree_control") : "";
  if (!enabled.empty() && enabled != "\n") out += "subtree_control " + enabled;
  return out;
}

std::vector<std::string> LaunchScope::wrap(const std::vector<std::string>& argv, const Identity& as) const {
  std::vector<std::string> out = {"/bin/sh", "-c", "echo $$ > " + dir_ + "/cgroup.procs && exec \"$@\"", "sh"};
  if (as.uid != 0) {
    std::vector<std::string> become = setpriv_as(as);
    out.insert(out.end(), become.begin(), become.end());
  }
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

std::string remount_cgroups_script() {
  // The same controllers, so the same trees.
  std::string remount = "mount -t tmpfs cgroups /sys/fs/cgroup";
  for (const auto& m : parse_mountinfo(read_file("/proc/self/mountinfo"))) {
    if (m.fstype != "cgroup" && m.fstype != "cgroup2") continue;
    std::string opts;
    for (const std::string& opt : {std::string("memory"), std::string("pids")})
      if (("," + m.super_opts + ",").find("," + opt + ",") != std::string::npos) opts = opt;
    if (m.fstype == "cgroup" && opts.empty()) continue;
    remount += " && mkdir -p " + m.mount_point + " && mount -t " + m.fstype + (opts.empty() ? "" : " -o " + opts) +
               " cgroup " + m.mount_point;
  }
  return remount;
}

}  // namespace cordon::testing
