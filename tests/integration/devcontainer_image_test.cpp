// The shipped devcontainer/ for real, run as the devcontainer CLI would run it, with podman (no
// Docker engine runs here): the image is built from devcontainer.json's Dockerfile and context
// on a base made from a local Debian root filesystem (devcontainer_base.sh; no container
// registry is asked), and the container runs with exactly devcontainer.json's runArgs and
// containerEnv, the project bound at /workspaces/app. Inside, the entrypoint installs cordon and
// shims the agent a team layer installed (a fake claude: real agents are tested elsewhere),
// `cordon verify` is all PASS, and PID 1 reaps what killed jailed launches orphan.
//
// The container's network is a world the test builds (networld.sh) in place of the engine's
// default one: nothing the container or its sandboxes send leaves it. Needs root.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "common/json_codec.h"
#include "jail_world.h"
#include "podman.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

const std::string kSource = CORDON_SOURCE_DIR;
const std::string kTeamImage = "localhost/cordon-devc-team:test";
const std::string kLabel = "cordon.test=devcontainer";  // on every image and layer the test builds
// The agent a team's layer installs; it says where it runs.
const std::string kFakeClaude =
    "#!/bin/sh\n"
    "echo \"fake-claude $* IS_SANDBOX=${IS_SANDBOX:-unset} pidns=$(readlink /proc/self/ns/pid)\"\n";

struct Suite {
  std::string problem;  // "" = ready
  ContainerWorld world;
  std::vector<std::string> run_args;       // devcontainer.json "runArgs", verbatim
  std::vector<std::string> container_env;  // "containerEnv" as KEY=VALUE
};
Suite* suite = nullptr;

// devcontainer.json: runArgs and containerEnv (build_cordon_image reads its "build").
std::string read_devcontainer_json(Suite& s) {
  std::string problem;
  auto json = parse_json(read_file(kSource + "/devcontainer/devcontainer.json"), &problem);
  if (!json || !json->is_object()) return "devcontainer.json is not JSON: " + problem;
  s.run_args = string_array_member(*json, "runArgs");
  if (json->contains("containerEnv"))
    for (const auto& [key, value] : (*json)["containerEnv"].items())
      s.container_env.push_back(key + "=" + value.get<std::string>());
  return "";
}

// cordon's image as the CLI builds it, and a team layer with a fake claude.
std::string build_images() {
  if (std::string problem = build_cordon_image(kLabel); !problem.empty()) return problem;
  TempDir layer("/var/tmp/cordon-devc-team-");
  write_file(layer.path() + "/claude", kFakeClaude, 0755);
  write_file(layer.path() + "/Containerfile", "FROM " + kCordonImage + "\nCOPY claude /usr/local/bin/claude\n");
  CommandResult team = run_shell(kPodman + " build --network=none --pull=never -q --label " + kLabel + " -t " +
                                 kTeamImage + " " + layer.path());
  if (team.status != 0) return "team layer: " + team.output;
  // Superseded images and their layers (untagged now) go; only this test's carry the label.
  run_shell(kPodman + " image prune -f --filter label=" + kLabel + " >/dev/null 2>&1");
  return "";
}

// Containers and worlds of a test process that was killed (a timeout): their names carry its pid.
void sweep_leftovers() {
  run_shell("for c in $(" + kPodman + " ps -a --filter label=" + kLabel +
            " --format '{{.Names}}'); do p=${c#cordon-devc-}; p=${p%%-*}; "
            "kill -0 \"$p\" 2>/dev/null || " +
            kPodman +
            " rm -f -t 0 \"$c\" >/dev/null 2>&1; done; "
            "for n in $(ip netns list | sed -n 's/^cjh-dc\\([0-9]*\\).*/\\1/p'); do "
            "kill -0 \"$n\" 2>/dev/null || " +
            kSource + "/tests/integration/networld.sh down dc$n /nonexistent; done");
}

class DevcontainerImage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::geteuid() != 0) return;
    sweep_leftovers();
    suite = new Suite;
    suite->problem = read_devcontainer_json(*suite);
    if (!suite->problem.empty()) return;
    suite->problem = suite->world.up("dc" + std::to_string(::getpid()));
    if (!suite->problem.empty()) return;
    suite->problem = build_images();
  }

  static void TearDownTestSuite() {
    delete suite;  // and its world
    suite = nullptr;
  }

  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "podman builds and runs the devcontainer as root (CI runs as root)";
    ASSERT_TRUE(suite->problem.empty()) << suite->problem;
    workspace_ = std::make_unique<TempDir>("/var/tmp/cordon-devc-ws-");
    // A project as a devcontainer user has one: a git repository holding .devcontainer/.
    CommandResult project = run_shell("cd " + workspace_->path() + " && git init -q && cp -r " + kSource +
                                      "/devcontainer .devcontainer");
    ASSERT_EQ(project.status, 0) << project.output;
  }

  void TearDown() override {
    for (const auto& name : containers_) run_shell(kPodman + " rm -f -t 0 " + name + " >/dev/null 2>&1");
  }

  // `podman run` as the CLI does it (devcontainer.json's runArgs and containerEnv, the project
  // at /workspaces/app, the image's own entrypoint and command), in the test's network world.
  // `extra` and `command`: a control's other entrypoint and its command.
  std::string start(const std::vector<std::string>& run_args, const std::string& extra = "",
                    const std::string& command = "") {
    std::string name = "cordon-devc-" + std::to_string(::getpid()) + "-" + std::to_string(containers_.size());
    containers_.push_back(name);
    std::string cmd = kPodman + " run -d --pull=never --label " + kLabel + " --name " + name + podman_ulimits() +
                      suite->world.podman_network() + " --mount type=bind,source=" + workspace_->path() +
                      ",target=/workspaces/app";
    for (const auto& env : suite->container_env) cmd += " -e " + shell_quote(env);
    for (const auto& arg : run_args) cmd += " " + shell_quote(arg);
    cmd += " " + extra + " " + kTeamImage + " " + command;
    last_command_ = cmd;
    CommandResult r = run_shell(cmd);
    EXPECT_EQ(r.status, 0) << cmd << "\n" << r.output;
    return name;
  }

  // Waits (bounded) until the entrypoint has exec'd the container's command; false when the
  // container stopped instead. `logs` receives what the entrypoint printed.
  bool ready(const std::string& name, std::string& logs) { return wait_for_sleep(kPodman, name, logs); }

  CommandResult exec(const std::string& name, const std::string& script, int timeout_seconds = 300,
                     const std::string& user = "") {
    return run_shell(kPodman + " exec -w /workspaces/app " + (user.empty() ? "" : "--user " + user + " ") + name +
                         " sh -c " + shell_quote(script),
                     timeout_seconds);
  }

  std::unique_ptr<TempDir> workspace_;
  std::vector<std::string> containers_;
  std::string last_command_;
};

TEST_F(DevcontainerImage, ThePackagedCordonShimsTheAgentAndVerifyIsAllPass) {
  std::string name = start(suite->run_args), logs;
  ASSERT_TRUE(ready(name, logs)) << last_command_ << "\n" << logs;
  EXPECT_NE(logs.find("cordon-entrypoint: cordon 0.1.0 (/usr/bin/cordon)"), std::string::npos) << logs;
  EXPECT_NE(logs.find("cordon-entrypoint: shimmed claude (/usr/local/bin/claude)"), std::string::npos) << logs;
  EXPECT_NE(logs.find("Summary: 0 FAIL"), std::string::npos) << logs;
  EXPECT_EQ(exec(name, "ps -o comm= -p 1").output, "tini\n");

  // The shim: claude is now cordon's, the agent moved beside the helpers, codex (absent) untouched.
  CommandResult shims = exec(
      name,
      "head -n 2 /usr/local/bin/claude; cat /usr/libexec/cordon/agents/claude; dpkg-query -W cordon; "
      "test -e /usr/local/bin/codex || echo NO-CODEX; ls /home/dev/.claude/commands; "
      "stat -c '%U' /home/dev/.claude /home/dev/.claude/commands");
  EXPECT_NE(shims.output.find("# cordon shim for claude"), std::string::npos) << shims.output;
  EXPECT_NE(shims.output.find(kFakeClaude), std::string::npos) << shims.output;
  EXPECT_NE(shims.output.find("NO-CODEX"), std::string::npos) << shims.output;
  EXPECT_NE(shims.output.find("cordon\t0.1.0\n"), std::string::npos) << "installed from the package\n" << shims.output;
  EXPECT_NE(shims.output.find("verify-sandbox.md"), std::string::npos) << shims.output;
  EXPECT_NE(shims.output.find("dev\ndev\n"), std::string::npos) << "the remote user's state stays its own\n"
                                                                << shims.output;

  // Typing `claude` in the project runs the agent inside a sandbox (with the profile's
  // arguments first): the sentinel and a pid namespace other than the container's.
  std::string container_pidns = exec(name, "readlink /proc/1/ns/pid").output;
  CommandResult agent = exec(name, "claude hello");
  EXPECT_EQ(agent.status, 0) << agent.output;
  EXPECT_NE(agent.output.find(" hello IS_SANDBOX=1 pidns=pid:["), std::string::npos) << agent.output;
  EXPECT_EQ(agent.output.find(container_pidns.substr(0, container_pidns.find('\n'))), std::string::npos)
      << agent.output << " vs the container's " << container_pidns;

  auto start_verify = std::chrono::steady_clock::now();
  CommandResult verify = exec(name, "cordon verify");
  std::printf("[devcontainer] cordon verify in the container: %.1f s\n", seconds_since(start_verify));
  // Root's cgroups are the container's (read-only here): 27 may WARN that the default budgets
  // are not enforced; nothing may FAIL.
  EXPECT_EQ(verify_report_problem(verify.output), "") << verify.output;
  EXPECT_EQ(verify.status, 0) << verify.output;
}

// The project as it is on a host: owned by the host user (uid 1000; the dev containers CLI
// gives the image's remoteUser that uid, updateRemoteUserUID). The remote user's session edits
// it and verify has no FAIL (27 may WARN: a container user's cgroup is not its own). Root in
// the container, which holds no capability inside the sandbox, is refused with the fix instead
// of getting a workspace that only looks writable.
TEST_F(DevcontainerImage, TheRemoteUserEditsAProjectTheHostUserOwns) {
  ASSERT_EQ(run_shell("chown -R 1000:1000 " + workspace_->path()).status, 0);
  std::string name = start(suite->run_args), logs;
  ASSERT_TRUE(ready(name, logs)) << last_command_ << "\n" << logs;
  CommandResult edit = exec(name, "id -un; cordon run -- sh -c 'echo edited > edited-inside' && cat edited-inside", 300,
                            "dev");
  EXPECT_EQ(edit.status, 0) << edit.output;
  EXPECT_EQ(edit.output, "dev\nedited\n");
  struct stat st {};
  ASSERT_EQ(::stat((workspace_->path() + "/edited-inside").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 1000u) << "the host user owns what the session wrote";
  CommandResult verify = exec(name, "cordon verify", 300, "dev");
  EXPECT_EQ(verify.status, 0) << verify.output;

  CommandResult as_root = exec(name, "cordon run -- touch by-root");
  EXPECT_EQ(as_root.status, 125) << as_root.output;
  EXPECT_NE(as_root.output.find("belongs to dev (uid 1000), mode 0755"), std::string::npos) << as_root.output;
  EXPECT_NE(as_root.output.find("sudo -u dev cordon run"), std::string::npos) << as_root.output;
}

// What one workload leaves in a container: 3 jailed launches that end, then 3 whose cordon is
// SIGKILLed once the sandbox runs (its forked child, holder and pasta are orphaned to PID 1 and
// die by PDEATHSIG), as when a terminal's session is killed. Prints "ZOMBIES N" and ps.
const char* kOrphaningWorkload =
    "for i in 1 2 3; do cordon run -- true || echo \"LAUNCH FAILED $?\"; done\n"
    "for i in 1 2 3; do\n"
    "  rm -f started\n"
    "  cordon run -- sh -c 'touch started; exec sleep 60' & pid=$!\n"
    "  n=0; while [ ! -e started ] && [ $n -lt 200 ]; do n=$((n + 1)); sleep 0.05; done\n"
    "  [ -e started ] || echo 'SANDBOX NEVER STARTED'\n"
    "  kill -9 $pid; wait $pid 2>/dev/null\n"
    "done\n"
    // The orphans die by PDEATHSIG: wait (bounded) until none is alive, then count what is left.
    "n=0; while ps -eo stat=,comm= | grep -v '^Z' | grep -q passt && [ $n -lt 100 ]; do n=$((n + 1)); sleep 0.05; "
    "done\n"
    "sleep 0.5\n"
    "echo \"ZOMBIES $(ps -eo stat= | grep -c '^Z')\"; ps -eo pid,ppid,stat,comm\n";

int zombies_in(const std::string& output) {
  std::smatch m;
  return std::regex_search(output, m, std::regex("ZOMBIES ([0-9]+)")) ? std::stoi(m[1].str()) : -1;
}

TEST_F(DevcontainerImage, PidOneReapsWhatKilledJailedLaunchesOrphan) {
  std::string name = start(suite->run_args), logs;
  ASSERT_TRUE(ready(name, logs)) << last_command_ << "\n" << logs;
  CommandResult shipped = exec(name, kOrphaningWorkload);
  EXPECT_EQ(shipped.output.find("LAUNCH FAILED"), std::string::npos) << shipped.output;
  EXPECT_EQ(shipped.output.find("NEVER STARTED"), std::string::npos) << shipped.output;
  EXPECT_EQ(zombies_in(shipped.output), 0) << shipped.output;
  EXPECT_EQ(shipped.output.find("passt"), std::string::npos) << "pasta left behind (alive or a zombie):\n"
                                                             << shipped.output;

  // Control: the image's entrypoint without tini, so PID 1 is the CMD's `sleep infinity`. The
  // same workload leaves zombies, pasta's among them: the count above can fail.
  std::string control = start(suite->run_args, "--entrypoint /opt/cordon/devcontainer/entrypoint.sh", "sleep infinity");
  ASSERT_TRUE(ready(control, logs)) << last_command_ << "\n" << logs;
  EXPECT_EQ(exec(control, "ps -o comm= -p 1").output, "sleep\n");
  CommandResult plain = exec(control, kOrphaningWorkload);
  std::printf("[devcontainer] zombies after the workload: %d with the image's PID 1, %d with sleep infinity\n",
              zombies_in(shipped.output), zombies_in(plain.output));
  EXPECT_EQ(plain.output.find("NEVER STARTED"), std::string::npos) << plain.output;
  EXPECT_GE(zombies_in(plain.output), 3) << plain.output;
  EXPECT_TRUE(std::regex_search(plain.output, std::regex(" Z[^ ]* +passt"))) << plain.output;
}

// Each privilege devcontainer.json asks for that podman's defaults lack, taken away: the
// entrypoint's `cordon doctor` names the missing mechanism and the flag that gives it back
// (inputs/container_facts.h), and the container refuses to start. (Podman 4's default seccomp
// profile lets bwrap make its namespaces: without seccomp=unconfined the container starts, so
// that privilege has no case here; the user-namespace row's fixes are unit-tested.)
TEST_F(DevcontainerImage, WithoutTheTunDeviceOrUnmaskedProcTheEntrypointRefusesToStart) {
  struct Case {
    std::string drop, doctor_row, fix;
  };
  for (const Case& c : {Case{"--device=/dev/net/tun", "[FAIL] /dev/net/tun", "--device=/dev/net/tun"},
                        Case{"systempaths=unconfined", "[FAIL] fresh /proc", "systempaths=unconfined"}}) {
    std::vector<std::string> args;
    for (size_t i = 0; i < suite->run_args.size(); ++i) {
      if (suite->run_args[i] == c.drop) {
        if (c.drop.rfind("--", 0) != 0 && !args.empty()) args.pop_back();  // its "--security-opt"
        continue;
      }
      args.push_back(suite->run_args[i]);
    }
    ASSERT_EQ(args.size() + (c.drop.rfind("--", 0) == 0 ? 1 : 2), suite->run_args.size())
        << c.drop << " is not in devcontainer.json's runArgs";
    std::string name = start(args), logs;
    EXPECT_FALSE(ready(name, logs)) << "started without " << c.drop << "\n" << logs;
    EXPECT_NE(logs.find("refusing to start"), std::string::npos) << c.drop << "\n" << logs;
    EXPECT_NE(logs.find(c.doctor_row), std::string::npos) << c.drop << "\n" << logs;
    EXPECT_NE(logs.find(c.fix), std::string::npos) << c.drop << ": the fix names the flag\n" << logs;
    EXPECT_NE(logs.find("[PASS] container              a podman container"), std::string::npos) << logs;
  }
}

}  // namespace
}  // namespace cordon::testing
