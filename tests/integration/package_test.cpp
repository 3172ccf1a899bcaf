// The Debian package for real: built from this tree by scripts/package, installed as an
// operator installs it (apt-get install ./cordon_*.deb, offline) into a clean Debian 12 root
// (the devcontainer test's cached mmdebstrap base image, which holds no cordon), run by podman
// as the devcontainer test runs its image (devcontainer.json's runArgs) in a network world the
// test builds. There: doctor and verify pass as root and as a user; an upgrade keeps the
// operator's edit to the conffile; remove refuses while an agent is shimmed and ends a running
// session; purge leaves nothing of cordon. And lintian reports no error. Needs root.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/json_codec.h"
#include "jail_world.h"
#include "podman.h"
#include "support.h"

namespace cordon::testing {
namespace {

const std::string kSource = CORDON_SOURCE_DIR;
const std::string kLabel = "cordon.test=package";
const std::string kUpgradeVersion = "0.1.0+upgradetest1";
const std::string kOperatorEdit = "# edited by the operator";
const std::string kNewerShippedLine = "# a line only the newer package ships";

// Every path of the container's root filesystem except the kernel's, the temporary ones, the
// package manager's own bookkeeping and the two workspaces' contents, sorted: what a package
// leaves behind shows in the difference between two walks.
const char* kWalk =
    "find / -xdev \\( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /var/tmp "
    "-o -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/log -o -path /var/cache/apt "
    "-o -path /var/cache/debconf -o -path /var/cache/ldconfig -o -path /var/cache/man -o -path /root/ws -o -path "
    "/home/tester/ws "
    "-o -path '/root/walk-*' \\) -prune -o -print | sort";

struct Suite {
  std::string problem;  // "" = ready
  ContainerWorld world;
  std::unique_ptr<TempDir> out;  // the packages (no "cordon" in its name: it shows in mountinfo)
  std::string deb, upgrade_deb, base_image;
  std::vector<std::string> run_args;  // devcontainer.json "runArgs", verbatim
};
Suite* suite = nullptr;

// scripts/package into the suite's directory, then the same package repacked as a newer version
// whose shipped configuration differs (so that dpkg has a conffile question to settle).
std::string build_packages(Suite& s) {
  auto start = std::chrono::steady_clock::now();
  make_compiler_cache();
  CommandResult built = run_shell("CCACHE_DIR=" + kCompilerCacheDir +
                                      " CORDON_CMAKE_ARGS=-DCMAKE_CXX_COMPILER_LAUNCHER=ccache " + kSource +
                                      "/scripts/package " + s.out->path(),
                                  2400);
  if (built.status != 0) return "scripts/package: " + built.output;
  std::smatch deb;
  if (!std::regex_search(built.output, deb, std::regex("cordon package: (/\\S+/cordon_[^/ ]+\\.deb)\n")))
    return "scripts/package named no .deb: " + built.output;
  s.deb = deb[1].str();
  std::printf("[package] %s built in %.1f s\n", s.deb.c_str(), seconds_since(start));
  s.upgrade_deb = s.out->path() + "/cordon_" + kUpgradeVersion + "_amd64.deb";
  CommandResult repack = run_shell(
      "set -e; d=" + s.out->path() + "/repack; rm -rf $d; dpkg-deb -R " + s.deb +
      " $d; sed -i 's/^Version: .*/Version: " + kUpgradeVersion + "/' $d/DEBIAN/control; echo '" + kNewerShippedLine +
      "' >> $d/etc/cordon/cordon.toml; dpkg-deb --root-owner-group -b $d " + s.upgrade_deb + " >/dev/null; rm -rf $d");
  if (repack.status != 0) return "repacking: " + repack.output;
  return "";
}

class Package : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::geteuid() != 0) return;
    suite = new Suite;
    suite->out = std::make_unique<TempDir>("/var/tmp/pkgtest-");
    std::string problem;
    auto json = parse_json(read_file(kSource + "/devcontainer/devcontainer.json"), &problem);
    if (!json || !json->is_object()) {
      suite->problem = "devcontainer.json is not JSON: " + problem;
      return;
    }
    suite->run_args = string_array_member(*json, "runArgs");
    suite->problem = build_packages(*suite);
    if (!suite->problem.empty()) return;
    suite->problem = debian_base_image(kSource + "/devcontainer/Dockerfile", suite->base_image);
    if (!suite->problem.empty()) return;
    suite->problem = suite->world.up("pk" + std::to_string(::getpid()));
  }

  static void TearDownTestSuite() {
    delete suite;  // and its world
    suite = nullptr;
  }

  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "building and installing the package needs root (CI runs as root)";
    ASSERT_TRUE(suite->problem.empty()) << suite->problem;
  }

  void TearDown() override {
    if (!container_.empty()) run_shell(kPodman + " rm -f -t 0 " + container_ + " >/dev/null 2>&1");
  }

  // The clean root, running tini and sleep as its command, the packages at /packages.
  void start() {
    container_ = "cordon-pkg-" + std::to_string(::getpid());
    std::string cmd = kPodman + " run -d --pull=never --label " + kLabel + " --name " + container_ + podman_ulimits() +
                      suite->world.podman_network() + " -v " + suite->out->path() + ":/packages:ro";
    for (const auto& arg : suite->run_args) cmd += " " + shell_quote(arg);
    cmd += " " + suite->base_image + " /usr/bin/tini -- sleep infinity";
    CommandResult r = run_shell(cmd);
    ASSERT_EQ(r.status, 0) << cmd << "\n" << r.output;
  }

  CommandResult exec(const std::string& script, int timeout_seconds = 300) {
    return run_shell(kPodman + " exec " + container_ + " sh -c " + shell_quote(script), timeout_seconds);
  }

  std::string container_;
};

// What `cordon verify` printed has no FAIL, at most check 27's WARN (root's cgroups are the
// container's), and exit 0.
void expect_verify_passes(const CommandResult& verify, const std::string& who) {
  EXPECT_EQ(verify.status, 0) << who << "\n" << verify.output;
  std::string problem = verify_report_problem(verify.output);
  EXPECT_EQ(problem, "") << who << "\n" << verify.output;
}

// Paths in `after` that `before` lacks (both sorted walks).
std::vector<std::string> new_paths(const std::string& before, const std::string& after) {
  std::vector<std::string> added;
  std::set<std::string> had;
  std::istringstream b(before), a(after);
  for (std::string line; std::getline(b, line);) had.insert(line);
  for (std::string line; std::getline(a, line);)
    if (!had.count(line)) added.push_back(line);
  return added;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

TEST_F(Package, InstallsVerifiesUpgradesRemovesAndPurgesInACleanDebianRoot) {
  start();
  // The user, the workspaces and an agent npm would have put in /usr/local/bin, then the walk.
  CommandResult prepare = exec(
      "set -e; useradd --create-home tester; mkdir -p /root/ws /home/tester/ws; chown tester: /home/tester/ws; "
      "printf '#!/bin/sh\\necho \"fake-agent $* pidns=$(readlink /proc/self/ns/pid)\"\\n' > /usr/local/bin/claude; "
      "chmod 755 /usr/local/bin/claude; test ! -e /usr/bin/cordon; " +
      std::string(kWalk) + " > /root/walk-before");
  ASSERT_EQ(prepare.status, 0) << prepare.output;

  // Install: apt resolves the Depends from what the root has (its world reaches no mirror).
  auto start_install = std::chrono::steady_clock::now();
  CommandResult install = exec("apt-get install -y /packages/" + suite->deb.substr(suite->deb.rfind('/') + 1));
  ASSERT_EQ(install.status, 0) << install.output;
  std::printf("[package] apt-get install in %.1f s\n", seconds_since(start_install));
  CommandResult facts = exec(
      "dpkg-query -W -f='Depends: ${Depends}\\nInstalled-Size: ${Installed-Size}\\n' cordon; cordon --version; "
      "ls /usr/libexec/cordon; grep -c '^' /var/lib/dpkg/info/cordon.conffiles; cat "
      "/var/lib/dpkg/info/cordon.conffiles");
  std::printf("[package] %s", facts.output.c_str());
  EXPECT_NE(facts.output.find("bubblewrap (>= 0.8.0)"), std::string::npos) << facts.output;
  EXPECT_NE(facts.output.find("passt (>= 0.0~git20230309)"), std::string::npos) << facts.output;
  EXPECT_NE(facts.output.find("libseccomp2"), std::string::npos) << "computed from the binaries\n" << facts.output;
  EXPECT_NE(facts.output.find("cordon-battery"), std::string::npos) << facts.output;
  EXPECT_NE(facts.output.find("\n/etc/cordon/cordon.toml\n"), std::string::npos) << facts.output;
  EXPECT_TRUE(std::regex_search(facts.output, std::regex("commit: [0-9a-f]{40}"))) << facts.output;

  CommandResult doctor = exec("cordon doctor");
  EXPECT_EQ(doctor.status, 0) << doctor.output;
  EXPECT_EQ(doctor.output.find("[FAIL]"), std::string::npos) << doctor.output;
  expect_verify_passes(exec("cordon verify --workspace /root/ws"), "root");
  expect_verify_passes(exec("cd /home/tester/ws && runuser -u tester -- cordon verify"), "tester");

  // Upgrade: the operator's edit stays, the newer shipped file lands beside it (dpkg asked;
  // --force-confold answers "keep mine" as an unattended upgrade does).
  CommandResult upgrade = exec("set -e; echo '" + kOperatorEdit + "' >> /etc/cordon/cordon.toml; " +
                               "apt-get install -y -o Dpkg::Options::=--force-confold /packages/" +
                               suite->upgrade_deb.substr(suite->upgrade_deb.rfind('/') + 1) +
                               "; dpkg-query -W -f='${Version}\\n' cordon; grep -c '" + kOperatorEdit +
                               "' /etc/cordon/cordon.toml; grep -c '" + kNewerShippedLine +
                               "' /etc/cordon/cordon.toml.dpkg-dist; cordon doctor >/dev/null && echo DOCTOR-OK");
  ASSERT_EQ(upgrade.status, 0) << upgrade.output;
  EXPECT_NE(upgrade.output.find(kUpgradeVersion + "\n1\n1\nDOCTOR-OK\n"), std::string::npos) << upgrade.output;

  // A shimmed agent: typing its name runs it sandboxed; remove refuses while it is shimmed.
  CommandResult shim = exec(
      "set -e; cordon shim install --agent claude; head -n 1 /usr/local/bin/claude; "
      "cd /home/tester/ws && runuser -u tester -- claude hello; readlink /proc/1/ns/pid");
  ASSERT_EQ(shim.status, 0) << shim.output;
  // The agent runs in a pid namespace other than the container's (the last line), with the
  // profile's arguments before the user's.
  std::smatch ran;
  ASSERT_TRUE(std::regex_search(shim.output, ran,
                                std::regex("fake-agent .*hello pidns=(pid:\\[[0-9]+\\])\n(pid:\\[[0-9]+\\])")))
      << shim.output;
  EXPECT_NE(ran[1].str(), ran[2].str()) << shim.output;
  CommandResult refused = exec("apt-get remove -y cordon; echo \"EXIT $?\"; dpkg-query -W -f='${Status}\\n' cordon");
  EXPECT_NE(refused.output.find("these agents are shimmed: claude"), std::string::npos) << refused.output;
  EXPECT_EQ(refused.output.find("EXIT 0"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("install ok installed"), std::string::npos) << refused.output;
  ASSERT_EQ(exec("cordon shim remove --agent claude && /usr/local/bin/claude restored").status, 0);

  // Remove, with a session running: it ends, its record closes, nothing of it is left.
  CommandResult session = exec(
      "cd /home/tester/ws && runuser -u tester -- cordon run --network offline -- "
      "sh -c 'touch started; exec sleep 600' >/tmp/session.log 2>&1 &\n"
      "n=0; while [ ! -e /home/tester/ws/started ] && [ $n -lt 300 ]; do n=$((n + 1)); sleep 0.1; done\n"
      "test -e /home/tester/ws/started && ps -eo args= | grep -q '^sleep 600$' && echo SESSION-RUNNING");
  ASSERT_NE(session.output.find("SESSION-RUNNING"), std::string::npos) << session.output;
  CommandResult removed = exec(
      "apt-get remove -y cordon; echo \"EXIT $?\"; dpkg-query -W -f='${Status}\\n' cordon; sleep 1; "
      "echo \"SLEEPERS $(ps -eo args= | grep -c '^sleep 600$')\"; "
      "echo \"CORDON-PROCESSES $(ps -eo comm= | grep -c '^cordon')\"; "
      "echo \"CORDON-MOUNTS $(cat /proc/[0-9]*/mountinfo 2>/dev/null | grep -c cordon)\"; "
      "echo \"RECEIPTS $(cat /home/tester/.local/state/cordon/sessions/*.json | grep -c "
      "'\"format\":\"cordon-receipt\"')\"; "
      "test -e /usr/bin/cordon || echo NO-BINARY; cat /tmp/session.log; " +
      std::string(kWalk) + " > /root/walk-removed");
  EXPECT_NE(removed.output.find("ending 1 running cordon session(s) before removal"), std::string::npos)
      << removed.output;
  EXPECT_NE(removed.output.find("EXIT 0\ndeinstall ok config-files\n"), std::string::npos) << removed.output;
  EXPECT_NE(removed.output.find("SLEEPERS 0\nCORDON-PROCESSES 0\nCORDON-MOUNTS 0\n"), std::string::npos)
      << removed.output;
  EXPECT_TRUE(std::regex_search(removed.output, std::regex("RECEIPTS [1-9]"))) << removed.output;
  EXPECT_NE(removed.output.find("NO-BINARY"), std::string::npos) << removed.output;
  // The walk sees what remove keeps (the conffile, root's records): the purge check below can fail.
  std::string before = exec("cat /root/walk-before").output;
  std::string after_remove = joined(new_paths(before, exec("cat /root/walk-removed").output));
  EXPECT_NE(after_remove.find("/etc/cordon/cordon.toml\n"), std::string::npos) << after_remove;
  EXPECT_NE(after_remove.find("/var/lib/cordon/sessions"), std::string::npos) << after_remove;

  // Purge: dpkg knows no cordon and the walk finds nothing of it outside the user's home, where
  // cordon made the agent profile's entries (~/.claude, which the agent makes itself too) and
  // keeps the user's records: a package never removes from a home (docs/packaging.md).
  CommandResult purged = exec("apt-get purge -y cordon; echo \"EXIT $?\"; dpkg -L cordon; " + std::string(kWalk) +
                              " > /root/walk-purged");
  EXPECT_NE(purged.output.find("EXIT 0"), std::string::npos) << purged.output;
  EXPECT_NE(purged.output.find("package 'cordon' is not installed"), std::string::npos) << purged.output;
  std::vector<std::string> left;
  for (const auto& path : new_paths(before, exec("cat /root/walk-purged").output))
    if (path.rfind("/home/tester/", 0) != 0) left.push_back(path);
  EXPECT_TRUE(left.empty()) << "left after purge:\n" << joined(left);
  CommandResult named = exec(std::string(kWalk) + " | grep -i cordon | grep -v '^/home/tester/'");
  EXPECT_EQ(named.output, "") << named.output;
}

// lintian, as Debian's archive runs it, on the package scripts/package built: no error. Its
// warnings are printed (the closing note lists and justifies each).
TEST_F(Package, LintianFindsNoError) {
  CommandResult lintian = run_shell("lintian --fail-on error --tag-display-limit 0 " + suite->deb, 600);
  std::printf("[package] lintian:\n%s", lintian.output.c_str());
  EXPECT_EQ(lintian.status, 0) << lintian.output;
  EXPECT_EQ(lintian.output.find("\nE: "), std::string::npos) << lintian.output;
  EXPECT_NE(lintian.output.rfind("E: ", 0), 0u) << lintian.output;
}

}  // namespace
}  // namespace cordon::testing
