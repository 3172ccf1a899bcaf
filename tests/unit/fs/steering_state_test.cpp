// The agent's memory (state that steers its later sessions): listed at launch, and what a
// session added, changed or removed named afterwards; nothing followed, nothing undone.
#include "launcher/fs/steering_state.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace cordon {
namespace {

namespace fs = std::filesystem;

class SteeringState : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cordon-steering-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    home_ = root_ + "/home";
    sessions_ = root_ + "/sessions";
    fs::create_directories(home_ + "/.claude/projects/-src-app/memory");
    fs::create_directories(home_ + "/.claude/projects/-src-other");
    fs::create_directories(sessions_);
    write(".claude/projects/-src-app/memory/MEMORY.md", "launch\n");
    write(".claude/projects/-src-app/memory/old.md", "old\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& rel, const std::string& text) {
    std::ofstream(home_ + "/" + rel, std::ios::trunc) << text;
  }
  std::map<std::string, std::string> details(const FootholdAudit& audit) {
    std::map<std::string, std::string> out;
    for (const auto& item : audit.items) {
      EXPECT_EQ(item.kind, "steering-state");
      out[item.path.substr(home_.size() + 1)] = item.detail;
    }
    return out;
  }

  std::string root_, home_, sessions_;
};

TEST_F(SteeringState, NamesWhatTheSessionAddedChangedAndRemovedAndKeepsIt) {
  ASSERT_EQ(snapshot_steering_state(sessions_, "S1", home_, "claude"), "");
  ASSERT_TRUE(fs::exists(sessions_ + "/S1.steering"));
  // The session: a rewrite of MEMORY.md (same size: the ctime tells), a new project's memory,
  // a removed file, a sub-agent memory, and a file outside every pattern.
  ::usleep(20000);
  write(".claude/projects/-src-app/memory/MEMORY.md", "LAUNCH\n");
  fs::remove(home_ + "/.claude/projects/-src-app/memory/old.md");
  fs::create_directories(home_ + "/.claude/projects/-src-other/memory/topics");
  write(".claude/projects/-src-other/memory/topics/run.md", "run curl | sh\n");
  fs::create_directories(home_ + "/.claude/agent-memory/reviewer");
  write(".claude/agent-memory/reviewer/MEMORY.md", "x\n");
  write(".claude/projects/-src-app/notes.md", "not memory\n");
  FootholdAudit audit = report_steering_changes(sessions_, "S1");
  EXPECT_TRUE(audit.problems.empty());
  EXPECT_EQ(details(audit),
            (std::map<std::string, std::string>{{".claude/projects/-src-app/memory/MEMORY.md", "changed"},
                                                {".claude/projects/-src-app/memory/old.md", "removed"},
                                                {".claude/projects/-src-other/memory/topics/run.md", "added"},
                                                {".claude/agent-memory/reviewer/MEMORY.md", "added"}}));
  // Named, not undone; the snapshot is gone.
  EXPECT_TRUE(fs::exists(home_ + "/.claude/projects/-src-other/memory/topics/run.md"));
  EXPECT_FALSE(fs::exists(sessions_ + "/S1.steering"));
  EXPECT_NE(steering_state_line(audit.items[0]).find("in the agent's memory"), std::string::npos);
}

TEST_F(SteeringState, AnUntouchedMemoryNamesNothing) {
  ASSERT_EQ(snapshot_steering_state(sessions_, "S2", home_, "claude"), "");
  EXPECT_TRUE(report_steering_changes(sessions_, "S2").items.empty());
}

// A link where a project or its memory was: the agent would follow it at its next start, so
// the link itself is named (and never followed by the listing).
TEST_F(SteeringState, ALinkInPlaceOfAProjectOrItsMemoryIsNamedNotFollowed) {
  fs::create_directories(root_ + "/elsewhere/memory");
  std::ofstream(root_ + "/elsewhere/memory/MEMORY.md") << "planted\n";
  ASSERT_EQ(snapshot_steering_state(sessions_, "S3", home_, "claude"), "");
  fs::remove_all(home_ + "/.claude/projects/-src-app/memory");
  fs::create_directory_symlink(root_ + "/elsewhere/memory", home_ + "/.claude/projects/-src-app/memory");
  fs::create_directory_symlink(root_ + "/elsewhere", home_ + "/.claude/projects/-src-third");
  EXPECT_EQ(details(report_steering_changes(sessions_, "S3")),
            (std::map<std::string, std::string>{{".claude/projects/-src-app/memory", "added"},
                                                {".claude/projects/-src-app/memory/MEMORY.md", "removed"},
                                                {".claude/projects/-src-app/memory/old.md", "removed"},
                                                {".claude/projects/-src-third", "added"}}));
}

TEST_F(SteeringState, AnAgentWithoutMemoryAndAnUnreadableSnapshot) {
  EXPECT_EQ(snapshot_steering_state(sessions_, "S4", home_, "generic"), "");
  EXPECT_FALSE(fs::exists(sessions_ + "/S4.steering"));
  EXPECT_TRUE(report_steering_changes(sessions_, "S4").items.empty());
  std::ofstream(sessions_ + "/S5.steering") << R"({"home":"/h","patterns":[],"complete":true,"entries":[["a",1]]})";
  FootholdAudit audit = report_steering_changes(sessions_, "S5");
  ASSERT_EQ(audit.problems.size(), 1u);
  EXPECT_NE(audit.problems[0].find("is unreadable"), std::string::npos);
}

TEST(SteeringChanges, ABoundedListingNamesNoRemovalItCannotSee) {
  SteeringListing before, after;
  before.entries["a"] = {1, 1, 1, 1, 0100644};
  after.complete = false;
  FootholdAudit audit = steering_changes("/h", before, after);
  EXPECT_TRUE(audit.items.empty());
  ASSERT_EQ(audit.problems.size(), 1u);
}

}  // namespace
}  // namespace cordon
