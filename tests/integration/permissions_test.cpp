// Audit 25.7: a session can chmod what it may write (the agent's state entries, the workspace's
// git dirs) world-writable or set-user-ID, and on the host any other local user could then
// plant what the operator runs. After the session, and at the crash sweep, what the session
// loosened is tightened and named; what was loose before the launch is left. Root and the test
// user, each with a fresh $HOME holding the workspace.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
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

constexpr gid_t kNogroup = 65534;

// What an agent steered by hostile input would leave for another local user, each printed as
// the sandbox sees it afterwards (so the test knows it happened inside).
constexpr const char* kLoosen =
    "chmod 0666 ~/.claude.json; chmod 0777 ~/.claude; chmod 0664 ~/.claude/shared; "
    "mkdir -p ~/.claude/rules && chmod 0777 ~/.claude/rules; "
    "cp /bin/true ~/.claude/tool && chmod 4755 ~/.claude/tool; chmod 0777 .git . ; "
    "stat -c 'inside %a %n' ~/.claude.json ~/.claude ~/.claude/shared ~/.claude/rules ~/.claude/tool .git .";

class Permissions : public LaunchFixture {
 protected:
  void SetUp() override {
    stage("/tmp/cordon-perm-", "/var/tmp/cordon-perm-prefix-");
    if (IsSkipped() || HasFatalFailure()) return;
    home_ = base_->path() + "/home";
    env_ = env_with_other_home(who_, home_);
    workspace_ = home_ + "/src/app";
    fs::create_directories(workspace_ + "/.git/hooks");
    write_file(workspace_ + "/.git/HEAD", "ref: refs/heads/main\n");
    write_file(workspace_ + "/.git/config", "[core]\n\tbare = false\n");
    fs::create_directories(home_ + "/.claude");
    write_file(home_ + "/.claude.json", "{}\n", 0600);
    write_file(home_ + "/.claude/legacy", "mine\n", 0666);
    write_file(home_ + "/.claude/shared", "x\n", 0644);
    chown_tree(home_, who_.uid, who_.gid);
    ASSERT_EQ(::chmod((home_ + "/.claude").c_str(), 0700), 0);
    ASSERT_EQ(::chmod((home_ + "/.claude/legacy").c_str(), 0666), 0);  // the operator's own choice
    ASSERT_EQ(::chown((home_ + "/.claude/shared").c_str(), who_.uid, kNogroup), 0);  // a group with others in it
    write_file(config_, "[network]\nmode = \"offline\"\n");
    // The launch must come after these changes by the file system's clock, as a real one would.
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  }

  RunOptions options() const {
    RunOptions o;
    o.env = env_;
    o.as = who_;
    o.cwd = workspace_;
    return o;
  }

  mode_t mode(const std::string& path) const {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  }

  // Nothing the session loosened is writable by others or set-id on the host; the shared-group
  // file lost its group write; what was loose before the launch kept its mode.
  void expect_tightened() const {
    for (const std::string& path : {home_ + "/.claude.json", home_ + "/.claude", home_ + "/.claude/shared",
                                    home_ + "/.claude/rules", home_ + "/.claude/tool", workspace_ + "/.git",
                                    workspace_})
      EXPECT_EQ(mode(path) & (S_IWOTH | S_ISUID | S_ISGID), 0u) << path << " " << std::oct << mode(path);
    EXPECT_EQ(mode(home_ + "/.claude/shared"), 0644u);
    EXPECT_EQ(mode(home_ + "/.claude/tool") & 0777, 0755u);
    EXPECT_EQ(mode(home_ + "/.claude/legacy"), 0666u) << "loose before the launch, untouched by the session";
  }

  std::string home_;
  std::map<std::string, std::string> env_;
};

TEST_P(Permissions, WhatTheSessionLoosenedIsTightenedAtTeardownAndNamed) {
  RunResult r = run({cordon_, "--config", config_, "run", "--agent", "claude", "--", "/bin/sh", "-c", kLoosen},
                    options());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // It really happened inside: the control for the teardown's work.
  EXPECT_NE(r.out.find("inside 666 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("inside 4755 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("inside 777 .git"), std::string::npos) << r.out;
  expect_tightened();
  EXPECT_NE(r.err.find("tightened " + home_ + "/.claude/tool (mode 4755 -> 0755)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(home_ + "/.claude/legacy"), std::string::npos) << r.err;

  const std::set<std::string> records = session_records(who_, workspace_);
  ASSERT_FALSE(records.empty());
  std::vector<Json> lines = record_lines(*records.rbegin());
  ASSERT_EQ(lines.size(), 2u);
  const Json& audit = lines[1]["receipt"]["permissions_audit"];
  EXPECT_GE(audit["items"].size(), 6u) << audit.dump();
  EXPECT_TRUE(audit["problems"].empty()) << audit.dump();
  EXPECT_TRUE(lines[0]["permissions"]["roots"].is_array()) << lines[0].dump();

  // A session that loosens nothing names nothing.
  RunResult quiet = run({cordon_, "--config", config_, "run", "--agent", "claude", "--", "true"}, options());
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("tightened"), std::string::npos) << quiet.err;
}

// The second line: without the session keeper (a test hook), the next `sessions gc` does it.
TEST_P(Permissions, AfterASigkilledLauncherSessionsGcTightensThem) {
  RunOptions without_keeper = options();
  without_keeper.env["CORDON_TEST_NO_SESSION_KEEPER"] = "1";
  pid_t pid = spawn_background({cordon_, "--config", config_, "run", "--agent", "claude", "--", "/bin/sh", "-c",
                                std::string(kLoosen) + " >/dev/null; touch planted && sleep 60"},
                               without_keeper);
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 500 && !path_exists(workspace_ + "/planted"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(path_exists(workspace_ + "/planted"));
  ::kill(pid, SIGKILL);
  stop_background(pid);
  RunResult gc = run({cordon_, "--config", config_, "sessions", "gc"}, options());
  EXPECT_EQ(gc.exit_code, 0) << gc.out << gc.err;
  EXPECT_NE((gc.out + gc.err).find("permissions tightened"), std::string::npos) << gc.out << gc.err;
  expect_tightened();
}

INSTANTIATE_TEST_SUITE_P(As, Permissions, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
