// Test support for cgroup budgets: where root's own cgroup can hold one on this host, and a
// cgroup of its own to launch cordon from.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "launcher/budgets/cgroup_plan.h"
#include "support.h"

namespace cordon::testing {

// Where root's own cgroup can hold a budget for `key`; nullopt when none can (tests then
// skip with the reason: without the controller there is no kernel mechanism to test).
// Under tests/vm/cgroup2-vm.sh (CORDON_EXPECT_CGROUP_V2=1) anything but v2 is a failure.
std::optional<cgroup::Budget> root_budget_site(const std::string& key, long long value);

// A cgroup of its own to launch cordon from, owned by `owner`: what an operator's delegation
// (v1: a chowned directory) or `systemd-run --scope -p Delegate=yes` (v2) gives a session.
// cgroup v2 hands controllers only to children of a cgroup without processes, so on v2 the
// scope is a sibling of the test's own cgroup, not a child. Removed at destruction.
// Shell commands that mount the host's cgroup hierarchies again over a fresh /sys/fs/cgroup:
// `ip netns exec` mounts a new /sys for a launch, without the cgroup trees.
std::string remount_cgroups_script();

class LaunchScope {
 public:
  // `enable_for_children` (v2): enable the site's controller in the scope's subtree_control,
  // for tests that use the scope itself as a session cgroup's parent.
  LaunchScope(const cgroup::Budget& site, const Identity& owner, bool enable_for_children = false);
  ~LaunchScope();
  LaunchScope(const LaunchScope&) = delete;
  LaunchScope& operator=(const LaunchScope&) = delete;
  const std::string& dir() const { return dir_; }
  // What a finished launch left in the scope: child cgroups, and (v2) controllers still
  // enabled for children. "" = nothing.
  std::string leftovers() const;

  // `argv` started inside the scope (by root), then run as `as`.
  std::vector<std::string> wrap(const std::vector<std::string>& argv, const Identity& as) const;

 private:
  std::string dir_;
};

}  // namespace cordon::testing
