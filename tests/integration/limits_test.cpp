// Resource budgets against real sandboxes: a fork bomb, a memory hog, a runaway loop and a
// huge file each hit their limit, and the host stays responsive. Bounded in time and count.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "launcher/budgets/cgroup_plan.h"
#include "launcher/budgets/cgroup_session.h"
#include "cgroup_scope.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

class Limits : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create the test user";
    auto user = unprivileged_identity();
    ASSERT_TRUE(user);
    user_ = *user;
    base_ = std::make_unique<TempDir>("/tmp/cordon-limits-");
    cordon_ = stage_install(base_->path() + "/prefix");
    workspace_ = base_->path() + "/ws";
    fs::create_directories(workspace_);
    chown_tree(workspace_, user_.uid, user_.gid);
    // Root's launches get a workspace of root's own: root holds no capability inside, so the
    // user's would be refused as one the session could not write.
    root_workspace_ = base_->path() + "/ws-root";
    fs::create_directories(root_workspace_);
  }

  // `cordon --config CONFIG run --workspace WS -- COMMAND`, CONFIG holding `limits_toml`.
  std::vector<std::string> cordon_run(const std::string& limits_toml, const std::vector<std::string>& command,
                                      const std::string& workspace = "") {
    std::string config = base_->path() + "/cordon.toml";
    write_file(config, "[network]\negress_jail = false\n[limits]\n" + limits_toml);
    std::vector<std::string> argv = {
        cordon_, "--config", config, "run", "--workspace", workspace.empty() ? workspace_ : workspace, "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
  }

  RunResult launch(const std::string& limits_toml, const std::vector<std::string>& command,
                   const Identity& who, const LaunchScope* scope = nullptr, int timeout_ms = 30000,
                   const std::string& workspace = "") {
    std::vector<std::string> argv =
        cordon_run(limits_toml, command, workspace.empty() && who.uid == 0 ? root_workspace_ : workspace);
    RunOptions o;
    o.env = base_env(who);
    o.as = who;
    o.cwd = workspace_;
    o.timeout_ms = timeout_ms;
    if (scope) {
      argv = scope->wrap(argv, who);
      o.as.reset();
    }
    return run(argv, o);
  }

  // The same launch started in `scope` by root, in the background (spawn_background).
  pid_t launch_in_background(const std::string& limits_toml, const std::vector<std::string>& command,
                             const LaunchScope& scope) {
    RunOptions o;
    o.env = base_env(root_identity());
    o.cwd = workspace_;
    return spawn_background(scope.wrap(cordon_run(limits_toml, command, root_workspace_), root_identity()), o);
  }

  // The host answers promptly afterwards: a trivial process starts and ends within 2 s.
  void expect_host_responsive() {
    auto start = std::chrono::steady_clock::now();
    RunResult r = run({"/bin/true"}, RunOptions{});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  }

  // The session record (manifest + receipt) of the latest launch in this test's workspace.
  std::string record_of_latest(const Identity& who) {
    std::set<std::string> records = session_records(who, who.uid == 0 ? root_workspace_ : workspace_);
    return records.empty() ? "" : read_file(*records.rbegin());
  }

  Identity user_;
  std::unique_ptr<TempDir> base_;
  std::string cordon_, workspace_, root_workspace_;
};

// The directory of a 96 MiB file on a disk-backed filesystem, which is that launch's workspace
// (so the sandbox sees it). The cgroup v2 VM provides one on its own 9p mount (a file made in
// the VM would be shmem, which no budget can reclaim), at /mnt (a workspace may not lie in /run);
// on the host it is made here, in /var/tmp.
std::string page_cache_sample_dir(std::unique_ptr<TempDir>& made_here) {
  if (const char* provided = std::getenv("CORDON_PAGE_CACHE_WS")) return provided;
  if (std::getenv("CORDON_EXPECT_CGROUP_V2")) ADD_FAILURE() << "the VM did not provide CORDON_PAGE_CACHE_WS";
  made_here = std::make_unique<TempDir>("/var/tmp/cordon-page-cache-");
  write_file(made_here->path() + "/sample.bin", std::string(96u << 20, '\0'));
  return made_here->path();
}

// Drops a file's clean pages from the page cache, so whoever reads it next is charged for them.
void evict_from_page_cache(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << errno_text(path, errno);
  EXPECT_EQ(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0) << path;
  ::close(fd);
}

// Forks up to 400 sleeping children and reports how many it got before the kernel refused.
const char* kForkProbe =
    "import os, time\n"
    "n = 0\n"
    "err = 'none'\n"
    "for i in range(400):\n"
    "    try:\n"
    "        pid = os.fork()\n"
    "    except OSError as e:\n"
    "        err = e.strerror\n"
    "        break\n"
    "    if pid == 0:\n"
    "        time.sleep(3)\n"
    "        os._exit(0)\n"
    "    n += 1\n"
    "print('forked', n, err)\n";

TEST_F(Limits, ForkBombIsContainedForAnOrdinaryUser) {
  RunResult r = launch("nproc = 48\n", {"/usr/bin/python3", "-c", kForkProbe}, user_);
  EXPECT_NE(r.out.find("Resource temporarily unavailable"), std::string::npos) << r.out << r.err;
  int forked = -1;
  std::sscanf(r.out.c_str(), "forked %d", &forked);
  EXPECT_GE(forked, 0);
  EXPECT_LT(forked, 48) << r.out;
  // Control: without the limit the same probe gets all 400.
  RunResult control = launch("", {"/usr/bin/python3", "-c", kForkProbe}, user_);
  EXPECT_NE(control.out.find("forked 400 none"), std::string::npos) << control.out;
  expect_host_responsive();
}

TEST_F(Limits, NprocAsRootIsRefusedUnlessBestEffort) {
  std::string marker = workspace_ + "/ran";
  RunResult refused = launch("nproc = 48\n", {"/usr/bin/touch", marker}, root_identity());
  EXPECT_EQ(refused.exit_code, 125);
  EXPECT_NE(refused.err.find("RLIMIT_NPROC"), std::string::npos) << refused.err;
  EXPECT_FALSE(path_exists(marker));
  RunResult allowed = launch("nproc = 48\nbest_effort = [\"nproc\"]\n", {"/bin/true"}, root_identity());
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
}

TEST_F(Limits, MemoryHogIsStopped) {
  const char* hog = "try:\n    b = bytearray(1 << 30)\n    print('ALLOCATED')\nexcept MemoryError:\n    print('MemoryError')\n";
  RunResult r = launch("as_bytes = 536870912\n", {"/usr/bin/python3", "-c", hog}, user_);
  EXPECT_NE(r.out.find("MemoryError"), std::string::npos) << r.out << r.err;
  RunResult control = launch("", {"/usr/bin/python3", "-c", hog}, user_);
  EXPECT_NE(control.out.find("ALLOCATED"), std::string::npos) << control.out;
}

TEST_F(Limits, RunawayLoopHitsTheWallClock) {
  auto start = std::chrono::steady_clock::now();
  RunResult r = launch("wall_clock_seconds = 2\n", {"/bin/sh", "-c", "while :; do :; done"}, user_);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 137);
  EXPECT_NE(r.err.find("wall_clock_seconds limit"), std::string::npos) << r.err;
  EXPECT_GE(took, std::chrono::seconds(2));
  EXPECT_LT(took, std::chrono::seconds(10));
  expect_host_responsive();
}

TEST_F(Limits, HugeFileHitsFsize) {
  std::string big = workspace_ + "/big";
  RunResult r = launch("fsize_bytes = 1048576\n", {"/bin/sh", "-c", "head -c 4194304 /dev/zero > big"}, user_);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_LE(fs::file_size(big), 1048576u);
  RunResult control = launch("", {"/bin/sh", "-c", "head -c 4194304 /dev/zero > big"}, user_);
  EXPECT_EQ(control.exit_code, 0);
  EXPECT_EQ(fs::file_size(big), 4194304u);
}

TEST_F(Limits, ARunMayOnlyLowerALimit) {
  std::string config = base_->path() + "/cordon.toml";
  write_file(config, "[network]\negress_jail = false\n[limits]\nnofile = 128\n");
  RunOptions o;
  o.env = base_env(user_);
  o.as = user_;
  o.cwd = workspace_;
  RunResult raised = run({cordon_, "--config", config, "run", "--limit", "nofile=4096", "--", "/bin/true"}, o);
  EXPECT_EQ(raised.exit_code, kExitLaunchRefused) << raised.err;  // run: every refusal of its own is 125
  RunResult lowered = run({cordon_, "--config", config, "run", "--limit", "nofile=64", "--", "/bin/sh", "-c", "ulimit -n"}, o);
  EXPECT_EQ(lowered.exit_code, 0) << lowered.err;
  EXPECT_EQ(lowered.out, "64\n");
  // Below what the launch itself needs: refused before anything runs, with the bounds.
  RunResult tiny = run({cordon_, "--config", config, "run", "--limit", "nofile=20", "--", "/bin/true"}, o);
  EXPECT_EQ(tiny.exit_code, kExitLaunchRefused) << tiny.err;
  EXPECT_NE(tiny.err.find("outside 64..1048576"), std::string::npos) << tiny.err;
}

// ---- cgroup budgets (memory_max_bytes, pids_max) ----
// On this CI machine the memory and pids controllers are cgroup v1. tests/vm/cgroup2-vm.sh
// runs these same tests in a VM whose kernel mounts only cgroup v2 (see docs/limits.md).

// A record's manifest (line 1) and receipt (the "receipt" of line 2; null while running).
Json manifest_of(const std::string& record) { return Json::parse(record.substr(0, record.find('\n'))); }
Json receipt_of(const std::string& record) {
  std::istringstream lines(record);
  for (std::string line; std::getline(lines, line);)
    if (Json doc = Json::parse(line); doc.contains("receipt")) return doc["receipt"];
  return Json();
}

// The receipt's "cgroups_removed" directories, each of which must be gone.
void expect_cgroups_removed(const std::string& record) {
  Json receipt = receipt_of(record);
  ASSERT_TRUE(receipt.is_object() && receipt["teardown"].contains("cgroups_removed")) << record;
  size_t count = 0;
  for (const std::string& dir : bytes_array_from_json(receipt["teardown"]["cgroups_removed"])) {
    EXPECT_NE(dir.find("/cordon-"), std::string::npos) << dir;
    EXPECT_FALSE(path_exists(dir)) << dir << " was left behind";
    ++count;
  }
  EXPECT_GE(count, 1u);
}

TEST_F(Limits, PidsMaxContainsAForkBombEvenForRoot) {
  auto site = root_budget_site("pids_max", 48);
  if (!site) GTEST_SKIP() << "no cgroup hierarchy here carries the pids controller";
  LaunchScope scope(*site, root_identity());
  RunResult r = launch("pids_max = 48\n", {"/usr/bin/python3", "-c", kForkProbe}, root_identity(), &scope);
  EXPECT_EQ(r.exit_code, 0) << r.err;  // 125 would mean a teardown problem
  EXPECT_EQ(scope.leftovers(), "");   // session cgroup gone; on v2 the launcher's leaf and controllers too
  EXPECT_NE(r.out.find("Resource temporarily unavailable"), std::string::npos) << r.out << r.err;
  int forked = -1;
  std::sscanf(r.out.c_str(), "forked %d", &forked);
  EXPECT_GE(forked, 0);
  EXPECT_LT(forked, 48) << r.out;
  EXPECT_NE(r.err.find("hit its pids_max limit"), std::string::npos) << r.err;
  std::string record = record_of_latest(root_identity());
  EXPECT_EQ(receipt_of(record)["limit_hits"], Json::parse(R"(["pids_max"])")) << record;
  // The default memory budget beside it: held where the scope carries the memory controller,
  // named as not enforced where it does not (a v2 scope made for pids alone).
  const std::string limits = manifest_of(record)["limits"].dump();
  const Json enforced = manifest_of(record)["limits"]["enforced"];
  EXPECT_TRUE(enforced == Json::parse(R"(["core","memory_max_bytes","pids_max"])") ||
              (enforced == Json::parse(R"(["core","pids_max"])") &&
               limits.find("\"memory_max_bytes (default; ") != std::string::npos))
      << record;
  EXPECT_NE(record.find(scope.dir() + "/cordon-"), std::string::npos) << record;
  expect_cgroups_removed(record);
  // Control: root is exempt from RLIMIT_NPROC, so without the cgroup the probe gets all 400.
  RunResult control = launch("", {"/usr/bin/python3", "-c", kForkProbe}, root_identity(), &scope);
  EXPECT_NE(control.out.find("forked 400 none"), std::string::npos) << control.out;
  expect_host_responsive();
}

TEST_F(Limits, MemoryMaxStopsAHogEvenWithoutAnAddressSpaceLimit) {
  auto site = root_budget_site("memory_max_bytes", 1 << 28);
  if (!site) GTEST_SKIP() << "no cgroup hierarchy here carries the memory controller";
  LaunchScope scope(*site, root_identity());
  // Touches every byte (a zero-filled bytearray would stay unbacked and never be charged).
  const char* hog = "b = b'x' * (1 << 30)\nprint('ALLOCATED', len(b))\n";
  RunResult r = launch("memory_max_bytes = 268435456\n", {"/usr/bin/python3", "-c", hog}, root_identity(), &scope);
  EXPECT_EQ(r.exit_code, 137) << r.out << r.err;  // the cgroup's OOM killer
  EXPECT_EQ(r.out.find("ALLOCATED"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("hit its memory_max_bytes limit"), std::string::npos) << r.err;
  expect_cgroups_removed(record_of_latest(root_identity()));
  RunResult control = launch("", {"/usr/bin/python3", "-c", hog}, root_identity(), &scope);
  EXPECT_NE(control.out.find("ALLOCATED 1073741824"), std::string::npos) << control.out << control.err;
  // Page cache beyond the budget is reclaimed, not a hit: reading 96 MiB of a host file under
  // 64 MiB runs to completion and reports nothing (v2 counts each reclaim as "max"). The file is
  // evicted first, so the sandbox's reads are charged to its own cgroup.
  std::unique_ptr<TempDir> made_here;
  const std::string sample_dir = page_cache_sample_dir(made_here);
  const std::string sample = sample_dir + "/sample.bin";
  ASSERT_EQ(fs::file_size(sample), 96u << 20) << sample;
  evict_from_page_cache(sample);
  const std::string reader =
      "total = 0\n"
      "with open('" + sample + "', 'rb') as f:\n"
      "    while chunk := f.read(1 << 20):\n"
      "        total += len(chunk)\n"
      "print('READ', total >> 20)\n";
  RunResult cache = launch("memory_max_bytes = 67108864\n", {"/usr/bin/python3", "-c", reader}, root_identity(),
                           &scope, 120000, sample_dir);
  EXPECT_EQ(cache.exit_code, 0) << cache.err;
  int read_mib = 0;
  std::sscanf(cache.out.c_str(), "READ %d", &read_mib);
  EXPECT_GE(read_mib, 96) << cache.out;
  EXPECT_EQ(cache.err.find("hit its memory_max_bytes"), std::string::npos) << cache.err;
  EXPECT_EQ(scope.leftovers(), "");
  expect_host_responsive();
}

// With no [limits] at all: the default pids and memory budgets. A user without a delegated
// cgroup still launches, with both named as not enforced in the record and in `cordon status`;
// root, in a scope carrying the pids controller, gets the pids default held and removed after.
TEST_F(Limits, DefaultBudgetsHoldWhereACgroupCanAndAreNamedNotEnforcedWhereNot) {
  auto site = root_budget_site("pids_max", 4096);
  struct stat st{};
  if (site && ::stat(site->parent_dir.c_str(), &st) == 0 && (st.st_uid == user_.uid || (st.st_mode & 0002)))
    GTEST_SKIP() << site->parent_dir << " is writable by uid " << user_.uid;
  std::string marker = workspace_ + "/ran";
  RunResult user_run = launch("", {"/usr/bin/touch", marker}, user_);
  EXPECT_EQ(user_run.exit_code, 0) << user_run.err;
  EXPECT_TRUE(path_exists(marker));
  std::string record = record_of_latest(user_);
  const Json not_enforced = manifest_of(record)["limits"]["not_enforced"];
  ASSERT_EQ(not_enforced.size(), 2u) << record;
  EXPECT_EQ(not_enforced[0].get<std::string>().rfind("memory_max_bytes (default; ", 0), 0u) << record;
  EXPECT_EQ(not_enforced[1].get<std::string>().rfind("pids_max (default; ", 0), 0u) << record;
  RunOptions o;
  o.env = base_env(user_);
  o.as = user_;
  o.cwd = workspace_;
  RunResult status = run({cordon_, "--config", base_->path() + "/cordon.toml", "status"}, o);
  EXPECT_NE(status.out.find("budgets      NOT ENFORCED here: memory_max_bytes (default; "), std::string::npos)
      << status.out << status.err;
  if (!site) GTEST_SKIP() << "no cgroup hierarchy here carries the pids controller";
  LaunchScope scope(*site, root_identity());
  RunResult root_run = launch("", {"/bin/true"}, root_identity(), &scope);
  EXPECT_EQ(root_run.exit_code, 0) << root_run.err;
  EXPECT_EQ(scope.leftovers(), "");
  record = record_of_latest(root_identity());
  EXPECT_EQ(manifest_of(record)["limits"]["values"]["pids_max"], 4096) << record;
  const Json enforced = manifest_of(record)["limits"]["enforced"];
  EXPECT_NE(std::find(enforced.begin(), enforced.end(), "pids_max"), enforced.end()) << record;
  EXPECT_NE(record.find(scope.dir() + "/cordon-"), std::string::npos) << record;
  expect_cgroups_removed(record);
}

TEST_F(Limits, CgroupBudgetWithoutAWritableCgroupIsRefusedUnlessBestEffort) {
  // The user launches from the test's own cgroup, which root owns: nothing can hold its budget.
  auto site = root_budget_site("pids_max", 48);
  struct stat st{};
  if (site && ::stat(site->parent_dir.c_str(), &st) == 0 && (st.st_uid == user_.uid || (st.st_mode & 0002)))
    GTEST_SKIP() << site->parent_dir << " is writable by uid " << user_.uid;
  std::string marker = workspace_ + "/ran";
  RunResult refused = launch("pids_max = 48\n", {"/usr/bin/touch", marker}, user_);
  EXPECT_EQ(refused.exit_code, 125);
  EXPECT_NE(refused.err.find("limits.pids_max is configured but cannot be enforced"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("best_effort"), std::string::npos) << refused.err;
  EXPECT_FALSE(path_exists(marker));
  RunResult lenient = launch("pids_max = 48\nbest_effort = [\"pids_max\"]\n", {"/usr/bin/touch", marker}, user_);
  EXPECT_EQ(lenient.exit_code, 0) << lenient.err;
  EXPECT_TRUE(path_exists(marker));
  std::string record = record_of_latest(user_);
  // The configured pids budget, and the default memory budget (which never stops a launch).
  const Json not_enforced = manifest_of(record)["limits"]["not_enforced"];
  ASSERT_EQ(not_enforced.size(), 2u) << record;
  EXPECT_EQ(not_enforced[0].get<std::string>().rfind("memory_max_bytes (default; ", 0), 0u) << record;
  EXPECT_EQ(not_enforced[1].get<std::string>().rfind("pids_max (", 0), 0u) << record;
}

TEST_F(Limits, PidsMaxWorksForAUserInACgroupDelegatedToThem) {
  auto site = root_budget_site("pids_max", 48);
  if (!site) GTEST_SKIP() << "no cgroup hierarchy here carries the pids controller";
  LaunchScope delegated(*site, user_);
  RunResult r = launch("pids_max = 48\n", {"/usr/bin/python3", "-c", kForkProbe}, user_, &delegated);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(delegated.leftovers(), "");
  int forked = -1;
  std::sscanf(r.out.c_str(), "forked %d", &forked);
  EXPECT_GE(forked, 0) << r.out << r.err;
  EXPECT_LT(forked, 48) << r.out;
  EXPECT_NE(r.err.find("hit its pids_max limit"), std::string::npos) << r.err;
  std::string record = record_of_latest(user_);
  EXPECT_NE(record.find(delegated.dir() + "/cordon-"), std::string::npos) << record;
  expect_cgroups_removed(record);
}

// A container's or a pod's limit sits on a cgroup above the launcher (here: the launch scope's
// own pids.max, 64). A configured budget above it is refused naming both numbers and where the
// limit is set; one that fits runs; the default (4096) is lowered to 64 and recorded so. The
// control for the refusal is the fitting launch in the same scope.
TEST_F(Limits, ABudgetAboveTheLimitTheLauncherRunsUnderIsRefusedAndADefaultLowered) {
  auto site = root_budget_site("pids_max", 48);
  if (!site) GTEST_SKIP() << "no cgroup hierarchy here carries the pids controller";
  LaunchScope pod(*site, user_);
  write_file(pod.dir() + "/pids.max", "64\n");
  std::string marker = workspace_ + "/ran";
  RunResult refused = launch("pids_max = 128\n", {"/usr/bin/touch", marker}, user_, &pod);
  EXPECT_EQ(refused.exit_code, 125) << refused.err;
  EXPECT_NE(refused.err.find("limits.pids_max = 128 is above the limit cordon itself runs under (64, set in " +
                             pod.dir() + "/pids.max"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("set limits.pids_max to at most 64"), std::string::npos) << refused.err;
  EXPECT_FALSE(path_exists(marker));

  RunResult fits = launch("pids_max = 48\n", {"/usr/bin/touch", marker}, user_, &pod);
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_TRUE(path_exists(marker));
  EXPECT_EQ(manifest_of(record_of_latest(user_))["limits"]["values"]["pids_max"], 48);

  // In a workspace of its own: its record is told from the one above by the workspace.
  const std::string second = base_->path() + "/ws-defaulted";
  fs::create_directories(second);
  chown_tree(second, user_.uid, user_.gid);
  RunResult defaulted = launch("", {"/bin/true"}, user_, &pod, 30000, second);
  EXPECT_EQ(defaulted.exit_code, 0) << defaulted.err;
  std::set<std::string> records = session_records(user_, second);
  ASSERT_EQ(records.size(), 1u);
  const Json limits = manifest_of(read_file(*records.begin()))["limits"];
  EXPECT_EQ(limits["values"]["pids_max"], 64) << limits.dump();
  EXPECT_EQ(pod.leftovers(), "");
}

// `cordon setup-user NAME` is the operator's one command for an ordinary user's budgets: before
// it, the user's configured pids budget is refused (the launcher's own cgroup is root's); after
// it the same launch holds it, and the default memory budget too, in the cgroups delegated to
// the user; `--remove` leaves none of them. On cgroup v2 the user's shell must also start in
// the delegated login leaf (not exercised on this v1/hybrid machine; the placement's unit test).
TEST_F(Limits, SetupUserDelegatesACgroupSoAnOrdinaryUsersBudgetsHold) {
  auto site = root_budget_site("pids_max", 48);
  if (!site) GTEST_SKIP() << "no cgroup hierarchy here carries the pids controller";
  if (site->version != cgroup::Version::V1) GTEST_SKIP() << "v2: the user's shell must start in the login leaf";
  struct stat st{};
  if (::stat(site->parent_dir.c_str(), &st) == 0 && (st.st_uid == user_.uid || (st.st_mode & 0002)))
    GTEST_SKIP() << site->parent_dir << " is writable by uid " << user_.uid;
  RunResult before = launch("pids_max = 48\n", {"/bin/true"}, user_);
  EXPECT_EQ(before.exit_code, 125) << before.err;
  EXPECT_NE(before.err.find("cordon setup-user " + user_.name + "`"), std::string::npos) << before.err;

  RunOptions as_root;
  as_root.env = base_env(root_identity());
  RunResult refused = run({cordon_, "setup-user", user_.name}, [&] {
    RunOptions o = as_root;
    o.as = user_;
    o.env = base_env(user_);
    return o;
  }());
  EXPECT_EQ(refused.exit_code, 2) << "only root delegates: " << refused.err;
  RunResult setup = run({cordon_, "setup-user", user_.name}, as_root);
  struct Undo {
    std::string cordon, user;
    ~Undo() { run({cordon, "setup-user", "--remove", user}, RunOptions{}); }
  } undo{cordon_, user_.name};
  ASSERT_EQ(setup.exit_code, 0) << setup.out << setup.err;
  std::vector<std::string> delegated;
  std::istringstream lines(setup.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("delegated ", 0) == 0) delegated.push_back(line.substr(10, line.find(" (cgroup") - 10));
  ASSERT_FALSE(delegated.empty()) << setup.out;
  for (const auto& dir : delegated) {
    ASSERT_EQ(::stat(dir.c_str(), &st), 0) << dir;
    EXPECT_EQ(st.st_uid, user_.uid) << dir;
  }

  RunResult r = launch("pids_max = 48\n", {"/usr/bin/python3", "-c", kForkProbe}, user_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  int forked = -1;
  std::sscanf(r.out.c_str(), "forked %d", &forked);
  EXPECT_GE(forked, 0) << r.out << r.err;
  EXPECT_LT(forked, 48) << r.out;
  std::string record = record_of_latest(user_);
  EXPECT_NE(record.find("/cordon/" + user_.name + "/cordon-"), std::string::npos) << record;
  EXPECT_TRUE(manifest_of(record)["limits"]["not_enforced"].empty()) << record;
  expect_cgroups_removed(record);

  RunResult removed = run({cordon_, "setup-user", "--remove", user_.name}, as_root);
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  for (const auto& dir : delegated) EXPECT_FALSE(path_exists(dir)) << dir;
}

TEST_F(Limits, V2RefusesACgroupSharedWithOtherProcesses) {
  auto site = root_budget_site("pids_max", 48);
  if (!site || site->version != cgroup::Version::V2) GTEST_SKIP() << "the pids controller is not on cgroup v2 here";
  // The test's own cgroup also holds the test: v2 cannot give a session cgroup controllers there.
  std::string marker = workspace_ + "/ran";
  RunResult r = launch("pids_max = 48\n", {"/usr/bin/touch", marker}, root_identity());
  EXPECT_EQ(r.exit_code, 125) << r.err;
  EXPECT_NE(r.err.find("other processes share the launcher's cgroup"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Delegate=yes"), std::string::npos) << r.err;
  EXPECT_FALSE(path_exists(marker));
  // doctor, run from the same cgroup, predicts the refusal.
  RunOptions o;
  o.env = base_env(root_identity());
  RunResult doctor = run({cordon_, "--config", base_->path() + "/cordon.toml", "doctor"}, o);
  EXPECT_NE(doctor.out.find("[FAIL] cgroup pids"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("other processes share the launcher's cgroup"), std::string::npos) << doctor.out;
  // The launcher moved itself back and removed its leaf: nothing of it is left.
  for (const auto& entry : fs::directory_iterator(site->parent_dir))
    EXPECT_EQ(entry.path().filename().string().rfind("cordon-", 0), std::string::npos) << entry.path();
}

TEST_F(Limits, V2TeardownKeepsControllersAnotherChildStillUses) {
  auto site = root_budget_site("pids_max", 48);
  if (!site || site->version != cgroup::Version::V2) GTEST_SKIP() << "the pids controller is not on cgroup v2 here";
  LaunchScope scope(*site, root_identity());
  pid_t session = launch_in_background("pids_max = 48\n", {"/bin/sleep", "2"}, scope);
  ASSERT_GT(session, 0);
  // Once the launcher has enabled pids for the scope's children, another child appears.
  bool enabled = false;
  for (int i = 0; i < 1000 && !enabled; ++i) {
    enabled = read_file(scope.dir() + "/cgroup.subtree_control").find("pids") != std::string::npos;
    if (!enabled) ::usleep(2000);
  }
  ASSERT_TRUE(enabled);
  const std::string other = scope.dir() + "/someone-else";
  fs::create_directory(other);
  write_file(other + "/pids.max", "5");
  int status = 0;
  for (int i = 0; i < 1000 && ::waitpid(session, &status, WNOHANG) == 0; ++i) ::usleep(10000);
  stop_background(session);
  // The other child's budget is intact; the launcher left its (now empty) leaf in place.
  EXPECT_EQ(read_file(other + "/pids.max"), "5\n");
  EXPECT_NE(read_file(scope.dir() + "/cgroup.subtree_control").find("pids"), std::string::npos);
  std::string record = record_of_latest(root_identity());
  EXPECT_EQ(receipt_of(record)["teardown"]["verified"], true) << record;
  // Clean up as the next launch would: the empty leaf, then the controllers.
  ::rmdir(other.c_str());
  for (const auto& entry : fs::directory_iterator(scope.dir()))
    if (entry.is_directory()) ::rmdir(entry.path().c_str());
  write_file(scope.dir() + "/cgroup.subtree_control", "-pids");
}

// SIGTERM every millisecond from the moment the session cgroup exists: whenever one lands
// (setup, run, teardown), the launcher finishes its teardown before it dies.
TEST_F(Limits, TerminationSignalsNeverCutTeardownShort) {
  auto site = root_budget_site("pids_max", 48);
  if (!site) GTEST_SKIP() << "no cgroup hierarchy here carries the pids controller";
  LaunchScope scope(*site, root_identity());
  for (int round = 0; round < 5; ++round) {
    pid_t launcher = launch_in_background("pids_max = 48\n", {"/bin/sleep", "5"}, scope);
    ASSERT_GT(launcher, 0);
    bool made = false;
    for (int i = 0; i < 2000 && !made; ++i) {
      for (const auto& entry : fs::directory_iterator(scope.dir()))
        made = made || entry.path().filename().string().rfind("cordon-2", 0) == 0;
      if (!made) ::usleep(500);
    }
    EXPECT_TRUE(made);
    int status = 0;
    for (int i = 0; i < 5000 && ::waitpid(launcher, &status, WNOHANG) == 0; ++i) {
      ::kill(launcher, SIGTERM);
      ::usleep(1000);
    }
    stop_background(launcher);
    EXPECT_EQ(scope.leftovers(), "") << "round " << round;
  }
}

// The teardown backstop, driven directly: a process still in the session cgroup after the
// sandbox is gone is killed, named as a problem, and the cgroup is removed anyway.
TEST_F(Limits, SessionCgroupKillsAndNamesWhatIsLeftThenRemovesItself) {
  auto site = root_budget_site("pids_max", 16);
  if (!site) GTEST_SKIP() << "no cgroup hierarchy here carries the pids controller";
  LaunchScope scope(*site, root_identity(), true);
  site->parent_dir = scope.dir();
  const std::string id = "test-" + std::to_string(::getpid());
  const std::string dir = site->parent_dir + "/cordon-" + id;
  {
    // Control: an empty session cgroup tears down clean.
    cgroup::SessionCgroup empty(std::vector<cgroup::Budget>{*site}, id);
    EXPECT_EQ(read_file(dir + "/pids.max"), "16\n");
    cgroup::CgroupFinish done = empty.finish();
    EXPECT_TRUE(done.problems.empty());
    EXPECT_TRUE(done.limit_hits.empty());
    EXPECT_FALSE(path_exists(dir));
  }
  cgroup::SessionCgroup session(std::vector<cgroup::Budget>{*site}, id);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    session.in_child(ChildSide{});
    ::pause();
    ::_exit(0);
  }
  bool joined = false;
  for (int i = 0; i < 2000 && !joined; ++i) {
    joined = read_file(dir + "/cgroup.procs") == std::to_string(child) + "\n";
    if (!joined) ::usleep(1000);
  }
  EXPECT_TRUE(joined);
  cgroup::CgroupFinish done = session.finish();
  ASSERT_EQ(done.problems.size(), 1u);
  EXPECT_NE(done.problems[0].find("1 process(es) were still in the session cgroup"), std::string::npos) << done.problems[0];
  EXPECT_FALSE(path_exists(dir));
  int status = 0;
  pid_t reaped = ::waitpid(child, &status, WNOHANG);
  EXPECT_TRUE(reaped == child || (reaped < 0 && errno == ECHILD));  // killed (and perhaps reaped by finish)
  if (reaped == child) {
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  }
}

TEST_F(Limits, SessionCgroupRefusedByTheKernelLeavesNothingBehind) {
  auto site = root_budget_site("pids_max", 16);
  if (!site) GTEST_SKIP() << "no cgroup hierarchy here carries the pids controller";
  LaunchScope scope(*site, root_identity(), true);
  site->parent_dir = scope.dir();
  site->settings = {{"pids.max", "-5"}};  // the kernel rejects it (EINVAL)
  const std::string id = "test-bad-" + std::to_string(::getpid());
  try {
    cgroup::SessionCgroup session(std::vector<cgroup::Budget>{*site}, id);
    FAIL() << "a rejected budget must refuse the launch";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("writing -5 to"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(path_exists(site->parent_dir + "/cordon-" + id));
}

}  // namespace
}  // namespace cordon::testing
