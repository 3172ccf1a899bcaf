// The agent's missing home entries are made once, in the right shape and mode, and nothing in
// the home can redirect the launcher's writes (symlinks are never followed).
#include "launcher/fs/agent_home.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace cordon {
namespace {

namespace fs = std::filesystem;

class AgentHome : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cordon-agent-home-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    home_ = tmpl;
  }
  void TearDown() override { fs::remove_all(home_); }
  mode_t mode(const std::string& rel) const {
    struct stat st {};
    return ::lstat((home_ + "/" + rel).c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
  }
  std::string read(const std::string& rel) const {
    std::ifstream in(home_ + "/" + rel);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::string home_;
};

TEST_F(AgentHome, MakesDirectoriesAndJsonStateFiles) {
  CreatedHomeEntries made = create_missing_home_entries(home_, {".claude", ".claude.json", ".config/gh"});
  EXPECT_EQ(made.created, (std::vector<std::string>{".claude", ".claude.json", ".config/gh"}));
  EXPECT_TRUE(made.problems.empty());
  EXPECT_TRUE(fs::is_directory(home_ + "/.claude"));
  EXPECT_EQ(mode(".claude"), 0700U);
  EXPECT_EQ(mode(".claude.json"), 0600U);
  EXPECT_EQ(read(".claude.json"), "{}\n");
  EXPECT_EQ(mode(".config"), 0700U);
  EXPECT_TRUE(fs::is_directory(home_ + "/.config/gh"));
}

TEST_F(AgentHome, LeavesWhatExistsAlone) {
  std::ofstream(home_ + "/.claude.json") << "{\"theme\":\"dark\"}";
  fs::create_directory(home_ + "/.codex");
  CreatedHomeEntries made = create_missing_home_entries(home_, {".claude.json", ".codex"});
  EXPECT_TRUE(made.created.empty());
  EXPECT_EQ(read(".claude.json"), "{\"theme\":\"dark\"}");
}

// A symlink planted in the home (by an earlier session, say) is neither followed nor replaced.
TEST_F(AgentHome, NeverFollowsASymlink) {
  const std::string elsewhere = home_ + "-elsewhere";
  fs::create_directory(elsewhere);
  fs::create_directory_symlink(elsewhere, home_ + "/.config");
  fs::create_symlink(elsewhere + "/target.json", home_ + "/.gemini.json");
  CreatedHomeEntries made = create_missing_home_entries(home_, {".config/gh", ".gemini.json"});
  EXPECT_TRUE(made.created.empty());
  ASSERT_EQ(made.problems.size(), 1U);
  EXPECT_NE(made.problems[0].find(".config/gh"), std::string::npos) << made.problems[0];
  EXPECT_FALSE(fs::exists(elsewhere + "/gh"));
  EXPECT_FALSE(fs::exists(elsewhere + "/target.json"));
  fs::remove_all(elsewhere);
}

}  // namespace
}  // namespace cordon
