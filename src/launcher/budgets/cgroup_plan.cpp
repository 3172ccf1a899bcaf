#include "launcher/budgets/cgroup_plan.h"

#include "common/limit_keys.h"

namespace cordon::cgroup {
namespace {

std::string join_set(const std::set<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : " ") + i;
  return out.empty() ? "none" : out;
}

// The files a budget sets, from the limit table (common/limit_keys.h).
std::vector<Setting> settings_for(const LimitKey& key, Version version, long long value) {
  const std::string v = std::to_string(value);
  std::vector<Setting> settings;
  if (version == Version::V2) {
    settings.push_back({key.v2_file, v});
    // Swap would let a session exceed its memory budget on disk: none for the session.
    if (*key.v2_swap_file) settings.push_back({key.v2_swap_file, "0", true});
  } else {
    settings.push_back({key.v1_file, v});
    // memsw (memory + swap) must be raised after, and lowered before, the memory limit.
    if (*key.v1_swap_file) settings.push_back({key.v1_swap_file, v, true});
  }
  return settings;
}

// No hierarchy carries the controller: why, and the fix.
Placement no_hierarchy_for(const std::vector<Hierarchy>& hierarchies, const std::string& controller) {
  Placement p;
  const Hierarchy* v2 = nullptr;
  for (const auto& h : hierarchies)
    if (h.version == Version::V2) v2 = &h;
  if (v2) {
    p.why_not = "the " + controller + " controller is not available to cgroup v2 directory " + v2->own_dir +
                " (its cgroup.controllers: " + join_set(v2->controllers) + ")";
    p.fix = "enable " + controller +
            " in the parent's cgroup.subtree_control, or start cordon in a delegated "
            "unit (systemd-run --scope -p Delegate=yes cordon run ...)";
  } else {
    p.why_not = "no mounted cgroup hierarchy carries the " + controller + " controller";
    p.fix = "mount cgroup2 at /sys/fs/cgroup with the " + controller + " controller enabled";
  }
  return p;
}

// The launcher's own cgroup is not writable: why, and the fix for who this is.
Placement not_writable(const Hierarchy& chosen, const std::string& limit_key, const std::string& controller, uid_t uid,
                       const std::string& account) {
  const std::string setup_user = "`cordon setup-user " + (account.empty() ? std::to_string(uid) : account) + "`";
  Placement p;
  p.why_not = std::string("the launcher's own cgroup ") + version_name(chosen.version) + " directory " +
              chosen.own_dir + " is not writable by uid " + std::to_string(uid);
  // Root that cannot write its own cgroup sits under a read-only cgroup mount (a container):
  // "launch as root" would be no advice at all there.
  if (uid == 0)
    p.fix =
        "the cgroup filesystem is read-only here (a container?): give the container the budget instead "
        "(podman/docker run --memory, --pids-limit) and set limits." +
        limit_key + " = 0 (or list it in limits.best_effort), or run the container with a writable cgroup namespace";
  else if (chosen.version == Version::V2)
    p.fix =
        "start cordon in a cgroup delegated to this user (systemd-run --user --scope -p Delegate=yes cordon run "
        "...), or have root run " +
        setup_user +
        " once and start the user's shells in the login cgroup it "
        "names";
  else
    p.fix = "have root run " + setup_user + " once (it delegates a " + controller +
            " cgroup to this user), or launch as root";
  return p;
}

Placement placed_in(const std::string& parent_dir, const Hierarchy& chosen, const std::string& limit_key,
                    const std::string& controller, long long value) {
  Placement p;
  p.budget = {limit_key,  controller, chosen.version,
              parent_dir, value,      settings_for(*find_limit_key(limit_key), chosen.version, value)};
  return p;
}

}  // namespace

Placement place_budget(const std::vector<Hierarchy>& hierarchies, const std::string& limit_key, long long value,
                       uid_t uid, const std::string& account) {
  const std::string controller = controller_for(limit_key);
  const Hierarchy* chosen = nullptr;
  // A controller bound to a v1 hierarchy is unavailable to v2, so a v1 match is the only one.
  for (const auto& h : hierarchies)
    if (h.controllers.count(controller) && (!chosen || h.version == Version::V1)) chosen = &h;
  if (!chosen) return no_hierarchy_for(hierarchies, controller);
  const bool shared = chosen->version == Version::V2 && !chosen->v2_root &&
                      !chosen->subtree_control.count(controller) && chosen->other_members > 0;
  // Where the launcher's own cgroup cannot hold a session, the one `cordon setup-user`
  // delegated to this user can (inputs/cgroup_hierarchy.h: delegated_dir).
  if (!chosen->delegated_dir.empty() && (!chosen->writable || shared))
    return placed_in(chosen->delegated_dir, *chosen, limit_key, controller, value);
  if (!chosen->writable) return not_writable(*chosen, limit_key, controller, uid, account);
  if (shared) {
    Placement p;
    p.why_not = std::to_string(chosen->other_members) + " other processes share the launcher's cgroup " +
                chosen->own_dir + ", so cgroup v2 cannot enable " + controller + " for a session cgroup";
    p.fix = "start cordon in a cgroup of its own: systemd-run --scope -p Delegate=yes cordon run ...";
    return p;
  }
  return placed_in(chosen->own_dir, *chosen, limit_key, controller, value);
}

}  // namespace cordon::cgroup
