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

// A profile's control entries are made after its state entries, inside them: a settings file
// as "{}", a TOML or Markdown file empty, a directory 0700. The facts then name each as the
// source of a read-only bind, below the state directory's real path.
TEST_F(AgentHome, MakesControlEntriesInsideTheStateEntriesAndNotesTheirSources) {
  AgentProfile profile;
  profile.name = "codex";
  profile.home = {".codex"};
  profile.control = {".codex/config.toml", ".codex/AGENTS.md", ".codex/settings.json", ".codex/packages"};
  HostFacts facts;
  facts.home = home_;
  create_missing_profile_entries(profile, facts);
  EXPECT_EQ(mode(".codex"), 0700U);
  EXPECT_EQ(mode(".codex/config.toml"), 0600U);
  EXPECT_EQ(read(".codex/config.toml"), "");
  EXPECT_EQ(read(".codex/AGENTS.md"), "");
  EXPECT_EQ(read(".codex/settings.json"), "{}\n");
  EXPECT_TRUE(fs::is_directory(home_ + "/.codex/packages"));
  EXPECT_EQ(mode(".codex/packages"), 0700U);
  for (const auto& entry : profile.control) {
    const ControlEntryFact& fact = facts.control_entries.at(home_ + "/" + entry);
    EXPECT_EQ(fact.source, fs::canonical(home_ + "/" + entry).string()) << entry;
    EXPECT_EQ(fact.link, "") << entry;
  }
}

// A link where a control entry should be (planted by a session that could write the state
// directory) is reported, never followed: the plan refuses it.
TEST_F(AgentHome, ReportsALinkInTheWayOfAControlEntry) {
  const std::string elsewhere = home_ + "-secret";
  fs::create_directory(elsewhere);
  std::ofstream(elsewhere + "/id_rsa") << "key";
  fs::create_directory(home_ + "/.claude");
  fs::create_symlink(elsewhere + "/id_rsa", home_ + "/.claude/settings.json");
  fs::create_directory_symlink(elsewhere, home_ + "/.claude/commands");
  AgentProfile profile;
  profile.name = "claude";
  profile.home = {".claude"};
  profile.control = {".claude/settings.json", ".claude/commands/verify.md"};
  HostFacts facts;
  facts.home = home_;
  create_missing_profile_entries(profile, facts);
  EXPECT_EQ(facts.control_entries.at(home_ + "/.claude/settings.json").link, home_ + "/.claude/settings.json");
  EXPECT_EQ(facts.control_entries.at(home_ + "/.claude/settings.json").source, "");
  EXPECT_EQ(facts.control_entries.at(home_ + "/.claude/commands/verify.md").link, home_ + "/.claude/commands");
  EXPECT_FALSE(fs::exists(elsewhere + "/verify.md"));
  EXPECT_EQ(read(".claude/settings.json"), "key");  // left as it was
  fs::remove_all(elsewhere);
}

}  // namespace
}  // namespace cordon
