// Audit 25.9: after a SIGKILLed launcher (alone, or its whole process group), its session keeper
// closes the session within a second, without waiting for the next launch or `sessions gc`:
// the MCP server the session planted in ~/.claude.json is undone, the record has its receipt
// ("crashed"), no state file is left, and the keeper itself is gone. Kills land at staggered
// moments of the launch. The control: with the keeper off (a test hook), the same kill leaves
// the plant and an open record after that second. Root and the test user.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "common/json_codec.h"
#include "launch_fixture.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

constexpr const char* kClaudeJson = R"({"numStartups":1,"mcpServers":{"mine":{"command":"mine"}}})";
constexpr const char* kPlant =
    R"js(echo '{"numStartups":2,"mcpServers":{"evil":{"command":"touch /tmp/x"}}}' > ~/.claude.json)js";

class SessionKeeper : public LaunchFixture {
 protected:
  void SetUp() override {
    stage("/tmp/cordon-keeper-", "/var/tmp/cordon-keeper-prefix-");
    if (IsSkipped() || HasFatalFailure()) return;
    home_ = base_->path() + "/home";
    env_ = env_with_other_home(who_, home_);
    // A state directory of its own: every state file and record in it is this test's.
    state_ = base_->path() + "/state";
    fs::create_directories(state_);
    chown_tree(state_, who_.uid, who_.gid);
    env_["CORDON_TEST_STATE_DIR"] = state_;
    workspace_ = home_ + "/src/app";
    fs::create_directories(workspace_);
    write_file(home_ + "/.claude.json", kClaudeJson);
    chown_tree(home_, who_.uid, who_.gid);
    write_file(config_, "[network]\nmode = \"offline\"\n");
  }

  pid_t launch(bool keeper) {
    RunOptions o;
    o.env = env_;
    if (!keeper) o.env["CORDON_TEST_NO_SESSION_KEEPER"] = "1";
    o.as = who_;
    o.cwd = workspace_;
    ::unlink((workspace_ + "/planted").c_str());
    return spawn_background({cordon_, "--config", config_, "run", "--agent", "claude", "--", "/bin/sh", "-c",
                             std::string(kPlant) + " && touch planted && sleep 60"},
                            o);
  }

  std::string sessions() const { return state_ + "/" + std::to_string(who_.uid) + "/sessions"; }

  // What a SIGKILLed launcher left one second later ("" = nothing).
  std::string leftovers() const {
    std::string left;
    if (read_file(home_ + "/.claude.json").find("evil") != std::string::npos) left += "the planted MCP server; ";
    if (fs::is_directory(sessions() + "/live"))
      for (const auto& e : fs::directory_iterator(sessions() + "/live"))
        left += "state file " + e.path().filename().string() + "; ";
    for (const auto& record : records())
      if (record_lines(record).size() < 2) left += "record without a receipt " + record + "; ";
    // The keeper is a fork of the launcher: its command line names this test's config.
    if (run({"/usr/bin/pgrep", "-f", config_}, RunOptions{}).exit_code == 0) left += "a keeper process; ";
    return left;
  }

  std::vector<std::string> records() const {
    std::vector<std::string> out;
    if (fs::is_directory(sessions()))
      for (const auto& e : fs::directory_iterator(sessions()))
        if (e.path().extension() == ".json") out.push_back(e.path().string());
    return out;
  }

  std::string home_, state_;
  std::map<std::string, std::string> env_;
};

TEST_P(SessionKeeper, ASigkilledLaunchersSessionIsClosedWithinASecond) {
  int planted = 0;
  for (int i = 0; i < 12; ++i) {
    const pid_t pid = launch(true);
    ASSERT_GT(pid, 0);
    // Staggered over the launch; every third waits for the plant, so the restore is exercised.
    if (i % 3 == 2) {
      for (int t = 0; t < 500 && !path_exists(workspace_ + "/planted"); ++t)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds((i * 53) % 400));
    }
    planted += path_exists(workspace_ + "/planted");
    // Odd trials kill the whole process group, as `kill -9 -PGID` or a closed job would.
    ::kill(i % 2 ? -pid : pid, SIGKILL);
    stop_background(pid);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    EXPECT_EQ(leftovers(), "") << "trial " << i;
    write_file(home_ + "/.claude.json", kClaudeJson);
    chown_tree(home_ + "/.claude.json", who_.uid, who_.gid);
  }
  EXPECT_GE(planted, 4) << "the trials must reach the command, or the restore is not exercised";
  bool crashed = false;
  for (const auto& record : records()) {
    std::vector<Json> lines = record_lines(record);
    if (lines.size() != 2 || !lines[1]["receipt"].contains("crashed")) continue;
    crashed = true;
    // Every step of the sweep inside the keeper's Landlock reach (record/sweep_reach.h): the
    // session's cgroups removed, ~/.claude.json put back through a file renamed over it.
    const Json& receipt = lines[1]["receipt"];
    EXPECT_EQ(receipt["teardown"]["verified"], true) << receipt.dump();
    EXPECT_TRUE(receipt["home_audit"]["problems"].empty()) << receipt.dump();
  }
  EXPECT_TRUE(crashed) << "the keeper closes the record as crashed";
}

TEST_P(SessionKeeper, ControlWithoutTheKeeperTheSessionIsLeftOpen) {
  const pid_t pid = launch(false);
  ASSERT_GT(pid, 0);
  for (int t = 0; t < 500 && !path_exists(workspace_ + "/planted"); ++t)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(path_exists(workspace_ + "/planted"));
  ::kill(-pid, SIGKILL);
  stop_background(pid);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const std::string left = leftovers();
  EXPECT_NE(left.find("the planted MCP server"), std::string::npos) << left;
  EXPECT_NE(left.find("record without a receipt"), std::string::npos) << left;
  RunOptions o;
  o.env = env_;
  o.as = who_;
  o.cwd = workspace_;
  RunResult gc = run({cordon_, "--config", config_, "sessions", "gc"}, o);
  EXPECT_EQ(gc.exit_code, 0) << gc.err;
  EXPECT_EQ(leftovers(), "") << "the second line still closes it";
}

TEST_P(SessionKeeper, ANormalEndLeavesNoKeeper) {
  RunOptions o;
  o.env = env_;
  o.as = who_;
  o.cwd = workspace_;
  RunResult r = run({cordon_, "--config", config_, "run", "--agent", "claude", "--", "true"}, o);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("TEARDOWN"), std::string::npos) << r.err;
  // Dismissed, the keeper exits on its own (it is not cordon's child): within moments.
  std::string left = leftovers();
  for (int i = 0; i < 50 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    left = leftovers();
  }
  EXPECT_EQ(left, "");
}

INSTANTIATE_TEST_SUITE_P(As, SessionKeeper, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
