#include "launcher/inputs/container_facts.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "common/mountinfo.h"
#include "common/text.h"

namespace cordon {
namespace {

// /.dockerenv alone is weak evidence (a VM image made from a container image keeps it): it
// counts only on an overlay root, as docker's storage gives one.
std::string engine_here(const MountTable& mounts) {
  if (const char* k = std::getenv("KUBERNETES_SERVICE_HOST"); k && *k) return "kubernetes";
  if (::access("/run/.containerenv", F_OK) == 0) return "podman";
  const Mount* root = mounts.containing("/");
  if (::access("/.dockerenv", F_OK) == 0 && root && root->fstype.find("overlay") != std::string::npos) return "docker";
  if (const char* c = std::getenv("container"); c && *c) return c;
  return "";
}

long long number_in(const std::string& path) { return parse_signed(trim(read_text_file(path))).value_or(-1); }

}  // namespace

std::vector<std::string> proc_masks_in(const std::string& mountinfo) {
  std::vector<std::string> masks;
  for (const Mount& m : parse_mountinfo(mountinfo))
    if (m.mount_point.rfind("/proc/", 0) == 0 && m.mount_point.rfind("/proc/sys/fs/binfmt_misc", 0) != 0)
      masks.push_back(m.mount_point);
  return masks;
}

bool cgroup_read_only_in(const std::string& mountinfo) {
  MountTable table(parse_mountinfo(mountinfo));
  const Mount* m = table.containing("/sys/fs/cgroup");
  return m && m->read_only();
}

bool seccomp_filtered_in(const std::string& proc_status) {
  std::istringstream lines(proc_status);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("Seccomp:", 0) == 0) return trim(line.substr(8)) == "2";
  return false;
}

ContainerFacts read_container_facts() {
  ContainerFacts f;
  const std::string mountinfo = read_text_file("/proc/self/mountinfo");
  f.engine = engine_here(MountTable(parse_mountinfo(mountinfo)));
  f.seccomp_filtered = seccomp_filtered_in(read_text_file("/proc/self/status"));
  f.apparmor_restricts_userns = number_in("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1;
  f.max_user_namespaces = number_in("/proc/sys/user/max_user_namespaces");
  f.proc_masks = proc_masks_in(mountinfo);
  f.cgroup_read_only = cgroup_read_only_in(mountinfo);
  return f;
}

std::string user_namespace_fix(const ContainerFacts& f, const std::string& bwrap_failure) {
  // bwrap's --disable-userns writes user.max_user_namespaces in the namespace it made; a
  // runtime that mounts /proc/sys read-only (part of its /proc masking) refuses the write.
  if (f.in_container() && bwrap_failure.find("/proc/sys/") != std::string::npos &&
      bwrap_failure.find("Read-only file system") != std::string::npos)
    return std::string(
               "the runtime mounts /proc/sys read-only, so bwrap cannot forbid nested user namespaces "
               "(it writes user.max_user_namespaces in its own namespace): ") +
           (f.in_pod() ? "securityContext.procMount: Unmasked (needs hostUsers: false)"
                       : "run the container with --security-opt systempaths=unconfined");
  if (f.max_user_namespaces == 0)
    return "user.max_user_namespaces is 0 here: set it above 0 on the host (sysctl -w user.max_user_namespaces=15000; "
           "a node setting for a pod)";
  if (f.apparmor_restricts_userns)
    return "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1, "
           "Ubuntu 23.10+): give bwrap an AppArmor profile with `userns,` on the host; in a pod "
           "securityContext.appArmorProfile {type: Unconfined} (or a profile with userns); podman: "
           "--security-opt apparmor=unconfined";
  if (f.in_pod())
    return "this pod's seccomp profile (the runtime's default refuses unshare and mount) blocks bwrap: "
           "securityContext.seccompProfile {type: Localhost, localhostProfile: cordon.json}, the runtime default "
           "plus clone with namespace flags, unshare, setns, mount, umount2, pivot_root, chroot, sethostname and "
           "Landlock (deploy/kubernetes/seccomp, docs/kubernetes.md), and hostUsers: false where the cluster "
           "supports it";
  if (f.in_container())
    return "the container's seccomp profile refuses the namespace calls bwrap makes: run it with "
           "--security-opt seccomp=unconfined (or a profile that adds unshare, clone, mount, umount2, pivot_root, "
           "setns to the default)";
  return "enable unprivileged user namespaces: sysctl -w kernel.unprivileged_userns_clone=1 "
         "and user.max_user_namespaces > 0";
}

std::string fresh_proc_fix(const ContainerFacts& f) {
  std::string masks;
  for (size_t i = 0; i < f.proc_masks.size() && i < 3; ++i) masks += (i ? ", " : "") + f.proc_masks[i];
  const std::string seen = f.proc_masks.empty()
                               ? ""
                               : " (masks over " + masks + (f.proc_masks.size() > 3 ? ", ..." : "") + ")";
  if (f.in_pod())
    return "the runtime masks /proc" + seen +
           ", so the kernel refuses a fresh /proc in a new user namespace: securityContext.procMount: Unmasked "
           "(needs hostUsers: false), or accept weaker process isolation with [filesystem] proc = \"host-ro\" "
           "(battery check 07 will FAIL)";
  if (f.in_container())
    return "the runtime masks /proc" + seen +
           ", so the kernel refuses a fresh /proc in a new user namespace: run it with --security-opt "
           "systempaths=unconfined (podman; docker: --security-opt systempaths=unconfined), or accept weaker process "
           "isolation with [filesystem] proc = \"host-ro\" (battery check 07 will FAIL)";
  return "a nested container refuses proc mounts: run it with --security-opt seccomp=unconfined (and "
         "apparmor=unconfined), or accept weaker process isolation with [filesystem] proc = \"host-ro\" "
         "(battery check 07 will FAIL)";
}

std::string tun_device_fix(const ContainerFacts& f) {
  if (f.in_pod())
    return "in a pod, use [network] mode = \"allowlist\" or \"offline\", which need no tun device; the jail needs "
           "/dev/net/tun in the pod (a device plugin that exposes it, or a privileged container, which cordon "
           "does not recommend)";
  if (f.in_container())
    return "run the container with --device=/dev/net/tun, or use [network] mode = \"allowlist\" or \"offline\"";
  return "";
}

std::string cgroup_budget_fix(const ContainerFacts& f) {
  if (!f.in_container()) return "";
  std::string why = f.cgroup_read_only ? "the container's cgroup filesystem is read-only"
                                       : "the container delegates no cgroup to cordon";
  if (f.in_pod())
    return why +
           ": the pod's resources.limits (memory) and the runtime's pids limit bound every session together; "
           "list the key in [limits] best_effort to launch without a per-session budget";
  return why +
         ": the container's own --memory and --pids-limit bound every session together; list the key in "
         "[limits] best_effort to launch without a per-session budget";
}

}  // namespace cordon
