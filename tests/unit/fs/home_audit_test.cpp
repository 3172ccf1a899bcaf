// Control keys in an agent's state file: found through "*" patterns, restored to their launch
// values with the rest of the session's writes kept, and the session's version kept aside.
#include "launcher/fs/home_audit.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace cordon {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(HomeAudit, FindsEveryMatchOfAPatternWithEscapedKeys) {
  Json doc = Json::parse(R"({"mcpServers":{"a":1},"projects":{"/src/app":{"mcpServers":{"b":2},"x":3},"/y":{}}})");
  Json found = control_key_values(doc, {"/mcpServers", "/projects/*/mcpServers", "/missing"});
  EXPECT_EQ(found, Json::parse(R"({"/mcpServers":{"a":1},"/projects/~1src~1app/mcpServers":{"b":2}})"));
}

TEST(HomeAudit, RestoresLaunchValuesAndDropsAddedKeys) {
  const std::vector<std::string> pointers = {"/mcpServers", "/projects/*/mcpServers"};
  Json launch = control_key_values(Json::parse(R"({"mcpServers":{"a":1},"projects":{}})"), pointers);
  Json after = Json::parse(R"({"n":2,"mcpServers":{"a":1,"evil":2},"projects":{"/p":{"mcpServers":{"e":1},"k":1}}})");
  Json fixed = with_control_keys(after, pointers, launch);
  EXPECT_EQ(fixed["n"], 2);
  EXPECT_EQ(fixed["mcpServers"], Json::parse(R"({"a":1})"));
  EXPECT_EQ(fixed["projects"]["/p"], Json::parse(R"({"k":1})"));
}

class HomeAuditFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cordon-home-audit-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    base_ = tmpl;
    fs::create_directories(base_ + "/home");
    fs::create_directories(base_ + "/state/sessions");
  }
  void TearDown() override { fs::remove_all(base_); }
  std::string base_;
};

TEST_F(HomeAuditFiles, UndoesAChangeKeepsTheSessionsVersionAndRemovesTheSnapshot) {
  const std::string file = base_ + "/home/.claude.json";
  std::ofstream(file) << R"({"mcpServers":{"a":{"command":"a"}}})";
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S1", base_ + "/home", "claude"), "");
  EXPECT_TRUE(fs::exists(base_ + "/state/sessions/S1.control-keys"));
  std::ofstream(file, std::ios::trunc) << R"({"mcpServers":{"a":{"command":"a"},"b":{"command":"b"}},"n":1})";
  FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", "S1");
  ASSERT_EQ(audit.items.size(), 1U) << (audit.problems.empty() ? "" : audit.problems[0]);
  EXPECT_EQ(audit.items[0].detail, "/mcpServers");
  Json doc = Json::parse(slurp(file));
  EXPECT_EQ(doc["mcpServers"], Json::parse(R"({"a":{"command":"a"}})"));
  EXPECT_EQ(doc["n"], 1);
  EXPECT_NE(slurp(audit.items[0].quarantine).find("\"b\""), std::string::npos);
  EXPECT_FALSE(fs::exists(base_ + "/state/sessions/S1.control-keys"));
  // Unchanged: nothing to do, nothing rewritten.
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S2", base_ + "/home", "claude"), "");
  EXPECT_TRUE(restore_control_keys(base_ + "/state/sessions", "S2").items.empty());
}

TEST_F(HomeAuditFiles, OtherAgentsHaveNoControlKeysAndAMissingSnapshotIsNothing) {
  EXPECT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S1", base_ + "/home", "codex"), "");
  EXPECT_FALSE(fs::exists(base_ + "/state/sessions/S1.control-keys"));
  FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", "S1");
  EXPECT_TRUE(audit.items.empty());
  EXPECT_TRUE(audit.problems.empty());
}

}  // namespace
}  // namespace cordon
