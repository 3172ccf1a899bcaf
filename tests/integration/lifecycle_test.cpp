// The session's lifecycle under faults, with real jailed launches in the test's own network
// world (tests/integration/networld.sh): cordon SIGKILLed at staggered moments, SIGTERM in the
// first milliseconds, a caller that ignores SIGPIPE, a PID 1 that never reaps, a full disk.
// Each test counts what is left (processes, temp dirs, cgroups, records without a state) and
// would see the leftovers of a launcher whose children outlive it. Bounded: every loop has a
// fixed trial count and every launch a timeout.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cgroup_scope.h"
#include "common/json_codec.h"
#include "common/text.h"
#include "jail_world.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

NetWorld* world = nullptr;
std::string world_problem;

class Lifecycle : public ::testing::TestWithParam<As> {
 protected:
  static void SetUpTestSuite() {
    world = open_suite_world(world_problem);
    if (!world) return;
    world->write_config("jail", "[network]\negress_jail = true\n");
    world->write_config("nojail", "[network]\negress_jail = false\n");
  }
  static void TearDownTestSuite() {
    close_suite_world(world);
  }
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "building the network world needs root (CI runs as root)";
    ASSERT_EQ(world_problem, "");
    if (GetParam() == As::User && !world->user_ready) GTEST_SKIP() << "no test user " << NetWorld::kUser;
  }

  std::string config(const std::string& name = "jail") const { return world->dir + "/cfg/" + name + ".toml"; }
  uid_t uid() const { return GetParam() == As::Root ? 0 : user_uid(); }
  static uid_t user_uid() {
    CommandResult id = run_shell(std::string("id -u ") + NetWorld::kUser);
    return static_cast<uid_t>(std::stoul(id.output));
  }
  std::string sessions_dir() const { return world->state_dir + "/" + std::to_string(uid()) + "/sessions"; }
  // A marker no other test's process carries: the sandboxed command's argv.
  static std::string marker_sleep() { return "/bin/sleep 31." + std::to_string(::getpid()); }

  // Writes `body` as a wrapper script: cordon_run execs it with cordon's argv ("$@").
  std::string wrapper(const std::string& name, const std::string& body) const {
    std::string path = world->dir + "/scripts/" + name + ".sh";
    write_file(path, "#!/bin/sh\n" + body, 0755);
    return "/bin/sh " + path;
  }
  // `cordon SUBCOMMAND...` with the launches' state directory (run by the wrapper, as the
  // launch's user, inside the world).
  std::string cordon_cmd(const std::string& cfg, const std::string& subcommand) const {
    return "env CORDON_TEST_STATE_DIR=" + world->state_dir + " " + world->cordon + " --config " + cfg + " " +
           subcommand;
  }
  // The same from the test, as the launch's user (record commands send no packet).
  CommandResult cordon_here(const std::string& subcommand) const {
    std::string as = GetParam() == As::User ? std::string("runuser -u ") + NetWorld::kUser + " -- " : "";
    return run_shell(as + cordon_cmd(config(), subcommand) + " 2>/dev/null");
  }

  // Records without a receipt, and state files left: "" when every session is closed.
  std::string open_records() const {
    std::string open;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(sessions_dir(), ec)) {
      std::string name = e.path().filename().string();
      if (e.path().extension() == ".json" && record_lines(e.path().string()).size() < 2) open += name + " ";
    }
    for (const auto& e : fs::directory_iterator(sessions_dir() + "/live", ec))
      open += "live/" + e.path().filename().string() + " ";
    return open;
  }
  void clear_records() const { fs::remove_all(sessions_dir()); }
  // Processes anywhere that carry this test's marker.
  static std::string marked_processes() {
    // The whole command line, exactly: not the shells and wrappers that carry it as arguments.
    return trim(run_shell("pgrep -xf '" + marker_sleep() + "' | tr '\\n' ' '").output);
  }
  static std::string strays_in_world() {
    std::string stray;
    for (int i = 0; i < 40; ++i) {  // pasta's and bwrap's exits finish within moments
      stray = world->stray_processes();
      if (stray.empty()) break;
      ::usleep(50 * 1000);
    }
    return stray;
  }
};

// SIGKILLs cordon N times at staggered moments of a jailed launch (`launch`: the wrapper's
// argv by default), then runs `after`.
// Delays are (i * stride) % range ms: 37/220 spreads the kills over a whole jailed launch,
// 7/46 crowds them into bwrap's own setup, where its --die-with-parent alone leaks.
std::string kill_loop(int trials, const std::string& after, const std::string& launch = "\"$@\"", int stride = 37,
                      int range = 220) {
  return "i=0\n"
         "while [ $i -lt " + std::to_string(trials) + " ]; do\n"
         "  " + launch + " >/dev/null 2>&1 &\n"
         "  pid=$!\n"
         "  sleep $(printf '0.%03d' $(( (i * " + std::to_string(stride) + ") % " + std::to_string(range) + " )))\n"
         "  kill -9 $pid 2>/dev/null\n"
         "  wait $pid 2>/dev/null\n"
         "  i=$((i + 1))\n"
         "done\n"
         "echo \"TEMP DIRS BEFORE: $(ls /tmp | grep -c '^cordon-jail-')\"\n" +
         after + "\n";
}

// As root with a pids budget (a session cgroup per launch) and gc afterwards; as a user with
// one normal launch afterwards, which sweeps too.
TEST_P(Lifecycle, SigkillDuringJailedLaunchesLeavesNothingBehind) {
  clear_records();
  NetWorld::RunOptions o;
  o.as = GetParam();
  std::string cfg = config();
  std::unique_ptr<LaunchScope> scope;
  std::string after = cordon_cmd(cfg, "run --workspace " + world->workspace(o.as) + " -- /bin/true");
  if (GetParam() == As::Root) {
    after = cordon_cmd(cfg, "sessions gc");
    if (auto site = root_budget_site("pids_max", 256)) {
      scope = std::make_unique<LaunchScope>(*site, root_identity());
      cfg = world->write_config("jail-budget", "[network]\negress_jail = true\n[limits]\npids_max = 256\n");
      after = cordon_cmd(cfg, "sessions gc");
      o.prelude = remount_cgroups_script() + " && echo $$ > " + scope->dir() + "/cgroup.procs";
    }
  }
  // Jailed launches killed anywhere, then launches without the jail killed during bwrap's setup.
  const std::string unjailed = cordon_cmd(config("nojail"), "run --workspace " + world->workspace(o.as) + " -- " +
                                                               marker_sleep());
  o.wrapper = wrapper("kill-then", kill_loop(30, "", "\"$@\"") + kill_loop(30, after, unjailed, 7, 46));
  CommandResult run = world->cordon_run(cfg, marker_sleep(), o);
  ASSERT_EQ(run.status, 0) << run.output;
  // The trials must have caught launches mid-way, or this test proves nothing. Each launch
  // sweeps the crashes before it with its output discarded, so the final gc or launch sees
  // only the last kill's leftovers: a record without a receipt, or a state file without a
  // record, depending on where that kill landed. The sessions list below counts the rest.
  // (The session keeper closes most crashes itself at once; the sessions list counts those.)
  EXPECT_EQ(strays_in_world(), "") << "pasta or a sandbox outlived its launcher";
  EXPECT_EQ(marked_processes(), "") << "a sandboxed command outlived its launcher";
  EXPECT_EQ(world->leftover_temp_files(), "") << run.output;
  EXPECT_EQ(open_records(), "") << run.output;
  if (scope) {
    EXPECT_EQ(scope->leftovers(), "") << run.output;
  }
  CommandResult listed = cordon_here("sessions list --json");
  Json sessions = Json::parse(listed.output)["sessions"];
  EXPECT_GE(sessions.size(), 10u) << listed.output;  // some were killed before their record
  int crashed = 0;
  for (const auto& s : sessions) {
    EXPECT_NE(s["state"], "running") << s.dump();
    crashed += s["state"] == "crashed";
  }
  const bool swept_a_crash = run.output.find("crashed (its launcher died without a receipt); swept") != std::string::npos ||
                             run.output.find("its launcher died before its record was written") != std::string::npos;
  EXPECT_TRUE(crashed > 0 || swept_a_crash) << listed.output << run.output;
}

// Control: with the session's pid namespace taken away (a test hook), bwrap's own
// --die-with-parent is all that ties the sandbox to its launcher, and the same kills leave
// sandboxes running: the check above can see what it guards against.
TEST_P(Lifecycle, ControlWithoutTheSessionInitSigkilledLaunchesLeaveSandboxesRunning) {
  NetWorld::RunOptions o;
  o.as = GetParam();
  const std::string launch = cordon_cmd(config("nojail"), "run --test-weaken no-session-init --workspace " +
                                                                world->workspace(o.as) + " -- " + marker_sleep());
  o.wrapper = wrapper("kill-weakened", kill_loop(30, "sleep 0.3", launch, 7, 46));
  // The window is a few ms of bwrap's setup: on a loaded machine a round of 30 kills can miss
  // it every time, so up to three rounds (bounded), until one leaves a survivor.
  std::string survivors;
  for (int round = 0; round < 3 && survivors.empty(); ++round) {
    CommandResult run = world->cordon_run(config(), "/bin/true", o);
    ASSERT_EQ(run.status, 0) << run.output;
    survivors = marked_processes();
  }
  // Clean up what the control left: the commands, and bwrap processes that never got as far as
  // starting one (their argv carries the marker; "[/]" keeps pkill's own shell out of it).
  run_shell("pkill -9 -f '[/]" + marker_sleep().substr(1) + "'");
  EXPECT_NE(survivors, "") << "no sandbox outlived its launcher even without the session init";
  cordon_here("sessions gc");
}

// SIGTERM in the first 0-45 ms of a jailed launch (cordon starting, setting up, bwrap setting
// up, the command starting): cordon always ends with the signal's status, never reports an
// incomplete teardown, and nothing of the session is still running once it has returned.
TEST_P(Lifecycle, EarlySigtermNeverLeavesTheCommandRunning) {
  NetWorld::RunOptions o;
  o.as = GetParam();
  o.wrapper = wrapper("early-term",
                      "i=0\n"
                      "while [ $i -lt 40 ]; do\n"
                      "  \"$@\" >/tmp/out 2>&1 &\n"
                      "  pid=$!\n"
                      "  sleep $(printf '0.%03d' $(( (i * 7) % 46 )))\n"
                      "  kill -TERM $pid 2>/dev/null\n"
                      "  wait $pid\n"
                      "  rc=$?\n"
                      "  left=$(pgrep -xf '" + marker_sleep() + "' | wc -l)\n"
                      "  echo \"TRIAL $i rc=$rc left=$left\"\n"
                      "  if grep -q 'TEARDOWN\\|teardown' /tmp/out; then echo \"TEARDOWN $i:\"; cat /tmp/out; fi\n"
                      "  i=$((i + 1))\n"
                      "done\n");
  CommandResult run = world->cordon_run(config(), marker_sleep(), o);
  ASSERT_EQ(run.status, 0) << run.output;
  std::istringstream lines(run.output);
  std::string line;
  int trials = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("TRIAL ", 0) != 0) continue;
    ++trials;
    EXPECT_NE(line.find(" rc=143 "), std::string::npos) << line << "\n" << run.output;
    EXPECT_NE(line.find(" left=0"), std::string::npos) << line << ": the command outlived cordon";
  }
  EXPECT_EQ(trials, 40) << run.output;
  EXPECT_EQ(run.output.find("TEARDOWN"), std::string::npos) << run.output;
  EXPECT_EQ(strays_in_world(), "");
}

// Python's posix_spawn and some CI runners leave SIGPIPE ignored; Debian's pasta refuses to
// start with it ignored, and the command must not inherit it either.
TEST_P(Lifecycle, ACallerThatIgnoresSigpipeStillLaunchesJailed) {
  NetWorld::RunOptions o;
  o.as = GetParam();
  o.wrapper = "/usr/bin/python3 -c 'import os, signal, sys; signal.signal(signal.SIGPIPE, signal.SIG_IGN); "
              "os.execv(\"/usr/bin/env\", [\"env\"] + sys.argv[1:])'";
  CommandResult run = world->cordon_run(config(), "/bin/grep SigIgn /proc/self/status", o);
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("SigIgn:\t0000000000000000"), std::string::npos) << run.output;
  // Control: the wrapper does leave SIGPIPE ignored for what it runs (no launch, no network).
  CommandResult ignored = run_shell(o.wrapper + " /bin/grep SigIgn /proc/self/status");
  auto at = ignored.output.find("SigIgn:\t");
  ASSERT_NE(at, std::string::npos) << ignored.output;
  unsigned long long mask = std::stoull(ignored.output.substr(at + 8, 16), nullptr, 16);
  EXPECT_TRUE(mask & (1ULL << (SIGPIPE - 1))) << ignored.output;
}

// Under a PID 1 that never reaps (a container's `sleep infinity`), every process cordon
// starts is still reaped by cordon: 20 jailed launches leave no zombie in that pid namespace.
TEST_P(Lifecycle, APidOneThatNeverReapsCollectsNoZombies) {
  std::string script = world->dir + "/scripts/launch-20.sh";
  const std::string as = GetParam() == As::User ? std::string("runuser -u ") + NetWorld::kUser +
                                                      " -- env HOME=/home/" + NetWorld::kUser + " "
                                                : "";
  write_file(script,
             "i=0\n"
             "while [ $i -lt 20 ]; do\n"
             "  out=$(" + as + "\"$@\" 2>&1) || echo \"LAUNCH FAILED $?: $out\"\n"
             "  i=$((i + 1))\n"
             "done\n"
             "sleep 0.2\n"
             "echo \"ZOMBIES $(ps -eo stat= | grep -c '^Z')\"\n",
             0755);
  // The pid namespace is made as root; the launches then run as the test's user (runuser in
  // the script) with the tun node the world gives that user.
  NetWorld::RunOptions o;
  o.as = As::Root;
  if (GetParam() == As::User) {
    o.prelude = "mount --bind " + world->dir + "/tun /dev/net/tun";
    o.workspace = world->workspace(As::User);  // the user's own: root's is not writable for it
  }
  // PID 1 forks the launches' shell, then only ever waits for that one child (never for
  // orphans), as `sleep infinity` would not at all.
  o.wrapper = "unshare --pid --fork --mount-proc /usr/bin/python3 -c 'import os, sys\n"
              "pid = os.fork()\n"
              "if pid == 0: os.execv(\"/bin/sh\", [\"sh\", \"" + script + "\"] + sys.argv[1:])\n"
              "os.waitpid(pid, 0)'";
  CommandResult run = world->cordon_run(config(), "/bin/true", o);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(run.output.find("LAUNCH FAILED"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("ZOMBIES 0"), std::string::npos) << run.output;
}

// A full disk (the state directory on a small tmpfs, private to the launch's mount namespace)
// before the manifest: the launch is refused, nothing runs, the message names ENOSPC.
TEST_P(Lifecycle, AFullDiskBeforeTheManifestRefusesTheLaunch) {
  NetWorld::RunOptions o;
  o.as = GetParam();
  o.prelude = "mount -t tmpfs -o size=256k tmpfs " + world->state_dir + " && chmod 1777 " + world->state_dir +
              " && (dd if=/dev/zero of=" + world->state_dir + "/fill bs=4k 2>/dev/null || true)";
  std::string marker = world->workspace(o.as) + "/ran";
  ::unlink(marker.c_str());
  CommandResult run = world->cordon_run(config(), "/usr/bin/touch " + marker, o);
  EXPECT_EQ(run.status, 125) << run.output;
  EXPECT_NE(run.output.find("No space left on device"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("nothing runs without a record"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(marker)) << "the command ran without a record";
}

// The disk fills while the command runs: the command's own status is returned, the message
// names the cause, the state file says "receipt-failed" with the status, and a later sweep
// completes the record from it.
TEST_P(Lifecycle, AFullDiskAfterTheManifestKeepsTheCommandsStatus) {
  NetWorld::RunOptions o;
  o.as = GetParam();
  const std::string ws = world->workspace(o.as), state = world->state_dir;
  const std::string sessions = state + "/" + std::to_string(uid()) + "/sessions";
  ::unlink((ws + "/started").c_str());
  ::unlink((ws + "/go").c_str());
  o.prelude = "mount -t tmpfs -o size=256k tmpfs " + state + " && chmod 1777 " + state;
  o.wrapper = wrapper("disk-full",
                      "\"$@\" >/tmp/out 2>&1 &\n"
                      "pid=$!\n"
                      "i=0; while [ ! -e " + ws + "/started ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done\n"
                      "rec=$(ls " + sessions + "/*.json)\n"
                      // tmpfs allocates whole pages: fill the record's last one (with JSON whitespace) so that
                      // the receipt needs a new page, then take every free page.
                      "size=$(stat -c %s $rec)\n"
                      "head -c $(( (4096 - size % 4096) % 4096 )) /dev/zero | tr '\\0' ' ' >> $rec\n"
                      "dd if=/dev/zero of=" + state + "/fill bs=4k 2>/dev/null\n"
                      "touch " + ws + "/go\n"
                      "wait $pid; echo \"RC=$?\"; cat /tmp/out\n"
                      "rm " + state + "/fill\n"
                      "echo LIST; " + cordon_cmd(config(), "sessions list --json") + "\n"
                      "echo GC; " + cordon_cmd(config(), "sessions gc") + "\n"
                      "echo RECORD; cat $rec\n");
  CommandResult run = world->cordon_run(
      config(), "/bin/sh -c 'touch started; i=0; while [ ! -e go ] && [ $i -lt 400 ]; do sleep 0.05; "
                "i=$((i + 1)); done; exit 7'", o);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("RC=7\n"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("the session record is incomplete"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("No space left on device"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("\"state\":\"receipt-failed\",\"exit_code\":7"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("completed from its note"), std::string::npos) << run.output;
  std::string record = run.output.substr(run.output.find("RECORD\n") + 7);
  std::istringstream lines(record);
  std::string line, receipt_line;
  while (std::getline(lines, line))
    if (line.find("cordon-receipt") != std::string::npos) receipt_line = line;
  ASSERT_FALSE(receipt_line.empty()) << record;
  Json receipt = Json::parse(receipt_line)["receipt"];
  EXPECT_EQ(receipt["exit_code"], 7) << receipt_line;
  EXPECT_TRUE(receipt["receipt_incomplete"]["cause"].is_string()) << receipt_line;
}

INSTANTIATE_TEST_SUITE_P(As, Lifecycle, ::testing::Values(As::Root, As::User),
                         [](const auto& info) { return info.param == As::Root ? "root" : "unprivileged"; });

}  // namespace
}  // namespace cordon::testing
