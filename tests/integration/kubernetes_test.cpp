// deploy/kubernetes for real. The manifests are checked offline against the Kubernetes API
// schema Debian's python3-kubernetes carries (kube_manifests.py validate), and the seccomp
// profile against the runtime default it is made from. Then the Job's pod and the interactive
// Pod are played with `podman kube play` (podman reads Kubernetes YAML; no cluster runs here)
// in the image devcontainer/ builds (podman.h: the same image path as the devcontainer test,
// no registry pulls), in a network world the test builds (networld.sh; podman runs in its
// namespace, so the pods' bridge and routes lead only into it): the Job's session
// runs and ends with the task's exit status, its records come out on the container's log,
// `cordon verify` passes in the Pod, and the same pod without each needed setting is refused
// by the entrypoint with the field that fixes it.
//
// What podman 4.3 cannot express is changed by kube_manifests.py and printed ("podman: ..."):
// the Job is played as its pod template; the downward API's namespace and node name get
// stand-in values; seccompProfile goes as Kubernetes' older annotation; and procMount:
// Unmasked, which podman ignores, is applied by the test's OCI runtime wrapper
// (oci_proc_mount.sh) as containerd and CRI-O apply it. hostUsers: false is played (podman's
// userns=auto, which needs /etc/subuid ranges for the "containers" user: added here when
// absent, removed after). Needs root.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "accounts_lock.h"
#include "common/json_codec.h"
#include "jail_world.h"
#include "kube_manifests.h"
#include "podman.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

const std::string kSource = CORDON_SOURCE_DIR;
const std::string kLabel = "cordon.test=kubernetes";  // on every pod the test plays
// podman as a Kubernetes node runs a pod for these tests: procMount applied by the wrapper.
const std::string kKubePodman = "podman --runtime " + kSource + "/tests/integration/oci_proc_mount.sh";

struct Suite {
  std::string problem;  // "" = ready
  ContainerWorld world;
  // What a node holds: seccomp/ (as /var/lib/kubelet/seccomp: the shipped profile) and the
  // containers.conf kube play reads.
  std::unique_ptr<TempDir> node;
  std::vector<std::string> subid_lines_added;
};
Suite* suite = nullptr;

// podman's userns=auto (hostUsers: false) takes ids from the "containers" user's ranges. Added
// under the accounts lock (useradd in other tests edits the same files), far above the ranges
// useradd hands out; removed after.
const std::string kSubidLine = "containers:1073741824:1048576";

void add_subid_ranges(Suite& s) {
  for (const char* file : {"/etc/subuid", "/etc/subgid"}) {
    CommandResult added = run_shell(std::string(kAccountsLock) + " sh -c 'grep -q ^containers: " + file +
                                    " && exit 3; echo " + kSubidLine + " >> " + file + "'");
    if (added.status == 0) s.subid_lines_added.push_back(file);
  }
}

void remove_subid_ranges(Suite& s) {
  for (const auto& file : s.subid_lines_added)
    run_shell(std::string(kAccountsLock) + " sed -i '/^" + kSubidLine + "$/d' " + file);
}

// Pods (and their ConfigMap volumes) of a test process that was killed: their names carry its pid.
void sweep_leftovers() {
  run_shell("for p in $(podman pod ps --filter label=" + kLabel +
            " --format '{{.Name}}'); do n=${p#cordon-k8s-}; n=${n%%-*}; "
            "kill -0 \"$n\" 2>/dev/null || { podman pod rm -f -t 0 \"$p\"; podman volume rm -f \"$p-config\"; } "
            ">/dev/null 2>&1; done");
}

class KubernetesPod : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::geteuid() != 0) return;
    sweep_leftovers();
    suite = new Suite;
    add_subid_ranges(*suite);
    suite->node = std::make_unique<TempDir>("/var/tmp/cordon-k8s-node-");
    fs::create_directories(suite->node->path() + "/seccomp");
    fs::copy_file(kKubeManifests + "/seccomp/cordon.json", suite->node->path() + "/seccomp/cordon.json");
    // podman's default rlimits exceed what root may set here (podman.h, podman_ulimits); kube
    // play takes them from containers.conf.
    write_file(suite->node->path() + "/containers.conf",
               "[containers]\ndefault_ulimits = [\"nofile=" + hard_limit(RLIMIT_NOFILE, RLIM_INFINITY) +
                   "\", \"nproc=" + hard_limit(RLIMIT_NPROC, 32768) + "\"]\n");
    suite->problem = suite->world.up("k8" + std::to_string(::getpid()));
    if (!suite->problem.empty()) return;
    suite->problem = build_cordon_image("cordon.test=devcontainer");
  }

  static void TearDownTestSuite() {
    if (!suite) return;
    // Whatever this process played and a test left (a failed play can leave a created pod).
    run_shell("for p in $(podman pod ps --filter label=" + kLabel + " --format '{{.Name}}' | grep '^cordon-k8s-" +
              std::to_string(::getpid()) + "-'); do podman pod rm -f -t 0 \"$p\"; podman volume rm -f \"$p-config\"; "
              "done >/dev/null 2>&1");
    remove_subid_ranges(*suite);
    delete suite;  // its world and node directory
    suite = nullptr;
  }

  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "podman plays the pods as root (CI runs as root)";
    ASSERT_TRUE(suite->problem.empty()) << suite->problem;
  }

  void TearDown() override {
    for (const auto& name : pods_)
      run_shell("podman pod rm -f -t 0 " + name + " >/dev/null 2>&1; podman volume rm -f " + name +
                "-config >/dev/null 2>&1");
  }

  // Plays the manifest (kube_manifests.py play with `options`) as a pod of this test: its name.
  // `adapted` receives what kube_manifests.py said podman could not express.
  std::string play(const std::string& options, std::string* adapted = nullptr) {
    static int count = 0;  // unique across this process's tests
    std::string name = "cordon-k8s-" + std::to_string(::getpid()) + "-" + std::to_string(count++);
    pods_.push_back(name);
    const std::string yaml = suite->node->path() + "/" + name + ".yaml";
    CommandResult made = run_shell(kKubeTool + " play " + kKubeManifests + " " + kCordonImage + " --name " + name + " " +
                                   options + " > " + yaml + " 2> " + yaml + ".said");
    EXPECT_EQ(made.status, 0) << read_file(yaml + ".said");
    if (adapted) *adapted = read_file(yaml + ".said");
    // podman runs in the world's network namespace: the pod's network (podman's bridge, its
    // routes and NAT) is made there, and leads only into the world. (kube play cannot join a
    // namespace by path as `podman run --network ns:` does.)
    CommandResult played =
        run_shell("CONTAINERS_CONF=" + suite->node->path() + "/containers.conf nsenter --net=/run/netns/cjh-k8" +
                  std::to_string(::getpid()) + " " + kKubePodman + " kube play --seccomp-profile-root " +
                  suite->node->path() + "/seccomp " + yaml);
    last_play_ = played.output;
    return name;
  }

  // Waits (bounded) for the pod's container to end: its exit status, and its log in `logs`.
  int wait_for_exit(const std::string& pod, std::string& logs) {
    CommandResult waited = run_shell("timeout 240 podman wait " + pod + "-cordon", 260);
    logs = run_shell("podman logs " + pod + "-cordon").output;
    std::string status = waited.output.substr(0, waited.output.find('\n'));
    return waited.status == 0 && !status.empty() ? std::stoi(status) : -1;
  }

  // Waits (bounded) until the interactive pod's container runs its command (sleep).
  bool running(const std::string& pod, std::string& logs) { return wait_for_sleep("podman", pod + "-cordon", logs); }

  std::vector<std::string> pods_;
  std::string last_play_;
};

// The cordon-export lines in a log (each self-describing), by record kind.
std::vector<Json> export_lines(const std::string& logs) {
  std::vector<Json> lines;
  std::istringstream in(logs);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("{\"format\":\"cordon-export\"", 0) != 0) continue;
    std::string problem;
    if (auto json = parse_json(line, &problem)) lines.push_back(*json);
  }
  return lines;
}

// The Job's pod as it ships: the entrypoint's doctor passes (no FAIL), the session runs the
// task and the container ends with its status, and the session's manifest and receipt come out
// on the container's log as cordon-export lines a collector reconstructs it from, labelled
// with the pod. Exit status: the same Job with a task that exits 7 ends with 7.
TEST_F(KubernetesPod, TheJobsPodRunsASessionAndItsRecordsComeOutOnTheLog) {
  std::string adapted, logs;
  std::string pod = play("", &adapted);
  std::printf("[kubernetes] what podman 4.3 could not express:\n%s", adapted.c_str());
  const int status = wait_for_exit(pod, logs);
  EXPECT_EQ(status, 0) << last_play_ << "\n" << logs;
  EXPECT_NE(logs.find("Summary: 0 FAIL"), std::string::npos) << logs;
  EXPECT_NE(logs.find("[PASS] container              a Kubernetes pod"), std::string::npos) << logs;
  EXPECT_NE(logs.find("[PASS] records export"), std::string::npos) << logs;
  // The tun row's fix is the pod's (allowlist or a device plugin), not the host's modprobe.
  EXPECT_NE(logs.find("fix: in a pod, use [network] mode = \"allowlist\""), std::string::npos) << logs;
  EXPECT_EQ(logs.find("modprobe"), std::string::npos) << logs;
  EXPECT_NE(logs.find("\nhello from cordon\n"), std::string::npos) << "the task ran in the sandbox\n" << logs;

  std::printf("[kubernetes] the Job's pod, its log:\n%s\n", logs.c_str());
  std::vector<Json> lines = export_lines(logs);
  ASSERT_EQ(lines.size(), 2u) << logs;
  EXPECT_EQ(lines[0]["kind"], "cordon-manifest") << lines[0].dump();
  EXPECT_EQ(lines[1]["kind"], "cordon-receipt") << lines[1].dump();
  EXPECT_EQ(lines[0]["session"], lines[1]["session"]);
  for (const Json& line : lines) {
    EXPECT_EQ(line["pod"]["namespace"], "default") << line.dump();
    EXPECT_EQ(line["pod"]["name"], pod) << "CORDON_POD_NAME: the pod's own name\n" << line.dump();
    EXPECT_EQ(line["pod"]["node"], "podman-node") << line.dump();
  }
  const Json& receipt = lines[1]["line"]["receipt"];
  EXPECT_EQ(receipt["exit_code"], 0) << lines[1].dump();
  EXPECT_EQ(receipt["command_ran"], true) << lines[1].dump();
  EXPECT_EQ(lines[0]["line"]["network"]["mode"], "allowlist") << lines[0].dump();
  EXPECT_EQ(lines[0]["line"]["session"], lines[0]["session"]) << lines[0].dump();

  std::string failing = play("--task 'echo failing; exit 7'");
  EXPECT_EQ(wait_for_exit(failing, logs), 7) << logs;
  EXPECT_NE(logs.find("\nfailing\n"), std::string::npos) << logs;
}

// The interactive Pod as it ships: `cordon verify` passes inside (27 may WARN: a non-root pod
// cannot give a session a cgroup of its own), and a session cannot reach the LAN host the
// pod's own network reaches (the control: the same connection from the pod, outside cordon).
TEST_F(KubernetesPod, TheInteractivePodPassesVerifyAndItsSessionsStayOffTheLan) {
  std::string logs;
  std::string pod = play("--manifest pod.yaml");
  ASSERT_TRUE(running(pod, logs)) << last_play_ << "\n" << logs;
  const std::string exec = "podman exec -u 1000 -w /home/dev/work " + pod + "-cordon ";
  CommandResult verify = run_shell(exec + "cordon verify", 300);
  EXPECT_EQ(verify_report_problem(verify.output), "") << verify.output;
  EXPECT_EQ(verify.status, 0) << verify.output;

  const std::string reach = "bash -c 'exec 3<>/dev/tcp/10.1.2.3/8080 && head -c 16 <&3' 2>&1 || echo UNREACHED";
  CommandResult outside = run_shell(exec + reach, 60);
  EXPECT_NE(outside.output.find("hello 10.1.2.3"), std::string::npos) << "the control: the pod reaches the LAN\n"
                                                                      << outside.output;
  CommandResult inside = run_shell(exec + "cordon run -- " + reach, 60);
  EXPECT_NE(inside.output.find("UNREACHED"), std::string::npos) << inside.output;
  EXPECT_EQ(inside.output.find("hello 10.1.2.3"), std::string::npos) << inside.output;
}

// The same Job's pod without each setting it needs: the entrypoint refuses to start (the pod
// fails) and its doctor names the manifest field that fixes it.
TEST_F(KubernetesPod, WithoutProcMountOrTheSeccompProfileTheEntrypointRefusesNamingTheField) {
  struct Case {
    std::string without, row, fix;
  };
  for (const Case& c : {Case{"procMount", "[FAIL] fresh /proc", "securityContext.procMount: Unmasked"},
                        Case{"seccompProfile", "[FAIL] user namespaces",
                             "securityContext.seccompProfile {type: Localhost, localhostProfile: cordon.json}"}}) {
    std::string logs;
    std::string pod = play("--without " + c.without);
    EXPECT_EQ(wait_for_exit(pod, logs), 1) << c.without << "\n" << last_play_ << "\n" << logs;
    EXPECT_NE(logs.find("refusing to start"), std::string::npos) << c.without << "\n" << logs;
    EXPECT_NE(logs.find(c.row), std::string::npos) << c.without << "\n" << logs;
    EXPECT_NE(logs.find(c.fix), std::string::npos) << c.without << ": the fix names the field\n" << logs;
    EXPECT_EQ(logs.find("hello from cordon"), std::string::npos) << c.without << "\n" << logs;
  }
}

// A session budget above the pod's limit (resources.limits.memory 4Gi): the entrypoint's
// doctor FAILs it with both numbers and the fields that fix it, and the pod does not start a
// session (the launch itself refuses the same way: Limits.ABudgetAboveTheLimit...).
TEST_F(KubernetesPod, ASessionBudgetAboveThePodsLimitIsRefusedNamingBoth) {
  std::string logs;
  std::string pod = play("--config-replace 'memory_max_bytes = 3221225472' 'memory_max_bytes = 8589934592'");
  EXPECT_EQ(wait_for_exit(pod, logs), 1) << last_play_ << "\n" << logs;
  EXPECT_NE(logs.find("[FAIL] cgroup memory          limits.memory_max_bytes = 8589934592 is above the limit "
                      "cordon itself runs under (4294967296, set in /sys/fs/cgroup/memory"),
            std::string::npos)
      << logs;
  EXPECT_NE(logs.find("resources.limits.memory"), std::string::npos) << logs;
  EXPECT_NE(logs.find("refusing to start"), std::string::npos) << logs;
  EXPECT_EQ(logs.find("hello from cordon"), std::string::npos) << logs;
}

}  // namespace
}  // namespace cordon::testing
