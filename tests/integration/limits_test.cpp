// Resource budgets against real sandboxes: a fork bomb, a memory hog, a runaway loop and a
// huge file each hit their limit, and the host stays responsive. Bounded in time and count.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

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
  }

  RunResult launch(const std::string& limits_toml, const std::vector<std::string>& command,
                   const Identity& who, int timeout_ms = 30000) {
    std::string config = base_->path() + "/cordon.toml";
    write_file(config, "[network]\negress_jail = false\n[limits]\n" + limits_toml);
    std::vector<std::string> argv = {cordon_, "--config", config, "run", "--workspace", workspace_, "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    RunOptions o;
    o.env = base_env(who);
    o.as = who;
    o.cwd = workspace_;
    o.timeout_ms = timeout_ms;
    return run(argv, o);
  }

  // The host answers promptly afterwards: a trivial process starts and ends within 2 s.
  void expect_host_responsive() {
    auto start = std::chrono::steady_clock::now();
    RunResult r = run({"/bin/true"}, RunOptions{});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  }

  Identity user_;
  std::unique_ptr<TempDir> base_;
  std::string cordon_, workspace_;
};

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
  write_file(config, "[network]\negress_jail = false\n[limits]\nnofile = 64\n");
  RunOptions o;
  o.env = base_env(user_);
  o.as = user_;
  o.cwd = workspace_;
  RunResult raised = run({cordon_, "--config", config, "run", "--limit", "nofile=4096", "--", "/bin/true"}, o);
  EXPECT_EQ(raised.exit_code, 2) << raised.err;
  RunResult lowered = run({cordon_, "--config", config, "run", "--limit", "nofile=32", "--", "/bin/sh", "-c", "ulimit -n"}, o);
  EXPECT_EQ(lowered.exit_code, 0) << lowered.err;
  EXPECT_EQ(lowered.out, "32\n");
}

}  // namespace
}  // namespace cordon::testing
