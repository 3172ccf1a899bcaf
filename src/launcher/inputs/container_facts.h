// What a container or a Kubernetes pod does to the mechanisms cordon needs, read from inside
// it, for `cordon doctor` to name the manifest field that fixes each (docs/kubernetes.md):
// the engine, whether this process already runs under a seccomp filter (a runtime's default
// profile refuses the namespace calls bwrap makes), AppArmor's restriction of unprivileged
// user namespaces, the runtime's masks over /proc (which make the kernel refuse a fresh /proc
// in a new user namespace), and a read-only cgroup filesystem. Advisory: no launch decision
// reads these; the launch checks the mechanisms themselves.
#pragma once

#include <string>
#include <vector>

namespace cordon {

struct ContainerFacts {
  // "kubernetes" (KUBERNETES_SERVICE_HOST), "podman" (/run/.containerenv), "docker"
  // (/.dockerenv on an overlay root), the `container` variable's value (systemd's convention),
  // or "" (none seen).
  std::string engine;
  bool seccomp_filtered = false;           // /proc/self/status "Seccomp: 2"
  bool apparmor_restricts_userns = false;  // kernel.apparmor_restrict_unprivileged_userns = 1
  long long max_user_namespaces = -1;      // user.max_user_namespaces (-1: unreadable)
  std::vector<std::string> proc_masks;     // mount points below /proc
  bool cgroup_read_only = false;           // /sys/fs/cgroup (or the mount holding it) is read-only

  bool in_container() const { return !engine.empty(); }
  bool in_pod() const { return engine == "kubernetes"; }
};

ContainerFacts read_container_facts();

// The parts read from text (unit-tested).
std::vector<std::string> proc_masks_in(const std::string& mountinfo);
bool cgroup_read_only_in(const std::string& mountinfo);
bool seccomp_filtered_in(const std::string& proc_status);

// The fixes `cordon doctor` gives for each mechanism, said for where it runs: a pod's
// manifest field, podman's flag, or the host's setting. `bwrap_failure`: what bwrap printed
// when it could not make the user namespace (a read-only /proc/sys is the /proc masking's
// fix, not the seccomp profile's).
std::string user_namespace_fix(const ContainerFacts& facts, const std::string& bwrap_failure = "");
std::string fresh_proc_fix(const ContainerFacts& facts);
std::string tun_device_fix(const ContainerFacts& facts);
std::string cgroup_budget_fix(const ContainerFacts& facts);

}  // namespace cordon
