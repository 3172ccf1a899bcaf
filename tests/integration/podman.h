// What the tests that run containers share (the devcontainer image, the Debian package): how
// podman is called on this host, the cached Debian 12 base image, and the small pieces every
// `podman run` line needs.
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <string>

namespace cordon::testing {

// crun 1.8 (Debian 12's default) refuses a host whose cgroup v2 hierarchy holds controllers
// while v1 is mounted too ("cgroups in hybrid mode not supported"), as this CI host does; runc
// runs the same OCI configuration.
inline const std::string kPodman = "podman --runtime runc";

// The compiler cache of every package build the tests make, on the host (package_test.cpp) and
// in the devcontainer image's first stage: scripts/package builds at one fixed path, so each
// reuses what the other compiled. Outside the repository: a fresh clone's CI run reuses it too.
// Made (with its size cap) by make_compiler_cache().
inline const std::string kCompilerCacheDir = "/var/cache/cordon-test/package/ccache";
void make_compiler_cache();

// `word` as one shell word, single-quoted.
std::string shell_quote(const std::string& word);

double seconds_since(std::chrono::steady_clock::time_point start);

// "N:N" for `podman run --ulimit`: this process's hard limit, at most `cap` ("-1:-1": unlimited).
// podman's default rlimits (nofile and nproc 1048576) exceed what it may set here: root on this
// host lacks CAP_SYS_RESOURCE, and podman 4.3 lowers its own RLIMIT_NPROC to 32768.
std::string hard_limit(int resource, rlim_t cap);
// The two --ulimit options every `podman run` here needs, from hard_limit.
std::string podman_ulimits();

// The Debian 12 base image devcontainer_base.sh makes (cached) for `dockerfile`'s packages:
// its name in `image`, or "" and the problem.
std::string debian_base_image(const std::string& dockerfile, std::string& image);

// The image devcontainer/devcontainer.json builds (its "build": Dockerfile and context), as
// the dev containers CLI builds it: cordon from its Debian package, on the cached Debian base
// (no registry is asked, --network=none), tagged kCordonImage and labelled `label`. Superseded
// images with the label are pruned. "" or the problem.
inline const std::string kCordonImage = "localhost/cordon-devc:test";
std::string build_cordon_image(const std::string& label);

// Waits (bounded: 240 polls, half a second apart) until `container`'s command, `sleep`, runs:
// true then, false when the container stopped first (an entrypoint that refused to start).
// `logs` receives what the container printed so far. `podman` is the command to call.
bool wait_for_sleep(const std::string& podman, const std::string& container, std::string& logs);

// A network world (networld.sh) for a container to join (`podman run --network
// ns:/run/netns/cjh-ID --dns 10.53.0.53`): nothing the container sends leaves it. Taken down
// when destroyed.
class ContainerWorld {
 public:
  ContainerWorld() = default;
  ContainerWorld(const ContainerWorld&) = delete;
  ContainerWorld& operator=(const ContainerWorld&) = delete;
  ~ContainerWorld() { down(); }
  // Builds the world named `id` (a short prefix and this process's pid: a killed test's world
  // is found by it); "" or what failed.
  std::string up(const std::string& id);
  void down();
  // The `podman run` options that put a container in it.
  std::string podman_network() const;

 private:
  std::string id_, dir_;
};

// What `cordon verify` printed in a container, judged: "" when nothing FAILed, every check is
// counted, and at most check 27 WARNs (root's cgroups in a container are the container's,
// read-only: the default budgets are not enforced); else what is wrong.
std::string verify_report_problem(const std::string& output);

}  // namespace cordon::testing
