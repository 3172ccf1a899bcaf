# Sourced by scripts/quickstart and scripts/test: installs the Debian 12 packages cordon needs,
# only those missing (idempotent), and only as root.

CORDON_BUILD_PACKAGES="g++ cmake make pkg-config libseccomp-dev libcap-dev libmnl-dev \
libtomlplusplus-dev libcli11-dev nlohmann-json3-dev"
CORDON_RUNTIME_PACKAGES="bubblewrap passt"
# Used by scripts/package: dpkg-buildpackage (which requires build-essential) and debhelper
# build the Debian package.
CORDON_PACKAGE_PACKAGES="build-essential dpkg-dev debhelper"
# Used by scripts/lint (run by scripts/test): the checked-in .clang-format and .clang-tidy.
CORDON_LINT_PACKAGES="clang-format clang-tidy"
# Used by the tests: real users, network worlds, listeners, a resolver, terminal probes.
# python3-venv and nodejs (whose npm it uses): the system view's toolchain test (view_test.cpp).
# podman, runc and mmdebstrap: the devcontainer image test (devcontainer_image_test.cpp) builds
# its base from a Debian rootfs and runs the container with runc; catatonit is the pause
# process of the pods `podman kube play` starts (kubernetes_test.cpp), and python3-yaml and
# python3-kubernetes read the Kubernetes manifests and check them against the API schema.
# clang-14 and libclang-rt-14-dev (libFuzzer, ASan and UBSan runtimes): the fuzz tests (tests/fuzz/).
# groff-base: the man pages' rendering check (tests/unit/cli/man_pages_test.cpp).
# libgtest-dev and googletest: the tests' framework (a build with BUILD_TESTING=ON).
# lintian: the package test (package_test.cpp) checks what scripts/package builds.
CORDON_TEST_PACKAGES="libgtest-dev googletest lintian iproute2 python3 python3-venv git util-linux procps socat dnsmasq-base passwd nodejs \
podman runc catatonit mmdebstrap clang-14 libclang-rt-14-dev groff-base python3-yaml python3-kubernetes"
# Used by the real-agent tests (tests/agents/install.sh, agents_test.cpp): Node.js 20 or later
# and its npm, which installs the pinned agents from the npm registry. Debian 12's own nodejs is
# 18, too old for gemini-cli 0.61, and Debian's separate npm package conflicts with NodeSource's
# nodejs (which brings npm, and is what this CI host runs): install.sh names the fix when either
# is missing or too old.
CORDON_AGENT_TEST_PACKAGES="nodejs"
# Used by tests/vm/cgroup2-vm.sh: the budget tests again under a kernel with only cgroup v2.
CORDON_VM_TEST_PACKAGES="qemu-system-x86 linux-image-amd64 busybox-static cpio"

cordon_install_packages() {
  local missing=""
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
  done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "cordon: missing Debian packages:$missing (run this script as root, or with sudo)" >&2
    return 1
  fi
  echo "cordon: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null
}
