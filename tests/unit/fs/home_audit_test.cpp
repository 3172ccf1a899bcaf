// Control keys in an agent's state file: found through "*" patterns, restored to their launch
// values with the rest of the session's writes kept, and the session's version kept aside.
#include "launcher/fs/home_audit.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
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

// The session writes the file: a control key's container turned into a scalar (or an array)
// must not stop its launch values from coming back. Before, nlohmann threw out_of_range
// ("unresolved reference token") out of the teardown, and the added server stayed.
TEST(HomeAudit, AContainerTheSessionTurnedIntoAScalarCannotStopTheRestore) {
  const std::vector<std::string> pointers = {"/mcpServers", "/projects/*/mcpServers"};
  Json launch = Json::parse(R"({"/mcpServers":{},"/projects/~1a/mcpServers":{"m":1}})");
  for (const char* after :
       {R"({"projects":"x","mcpServers":{"evil":1}})", R"({"projects":[1],"mcpServers":{"evil":1}})",
        R"({"projects":{"/a":7},"mcpServers":{"evil":1}})"}) {
    Json fixed;
    ASSERT_NO_THROW(fixed = with_control_keys(Json::parse(after), pointers, launch)) << after;
    EXPECT_EQ(fixed["mcpServers"], Json::object()) << after;
    EXPECT_EQ(fixed["projects"]["/a"]["mcpServers"], Json::parse(R"({"m":1})")) << after;
  }
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

// The restored file keeps the mode the session left, whatever the launcher's umask: the
// permission audit after it (fs/loose_permissions.h) then sees a loose mode, tightens it and
// names it. Before, a 0666 left by the session came back 0644 under umask 022, so the record
// named the restore and never the loosening.
TEST_F(HomeAuditFiles, TheRestoredFileKeepsTheSessionsModeForThePermissionAudit) {
  const std::string file = base_ + "/home/.claude.json";
  std::ofstream(file) << R"({"mcpServers":{}})";
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S1", base_ + "/home", "claude"), "");
  std::ofstream(file, std::ios::trunc) << R"({"mcpServers":{"b":{"command":"b"}}})";
  ASSERT_EQ(::chmod(file.c_str(), 0666), 0);
  const mode_t old_umask = ::umask(022);
  FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", "S1");
  ::umask(old_umask);
  ASSERT_EQ(audit.items.size(), 1U);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0666U);
}

// Claude Code writes empty defaults for every project it meets: no grant, no word, and they
// stay. A granting value next to them is restored and named; the defaults still stay.
TEST_F(HomeAuditFiles, EmptyDefaultsAreNoChangeAndStayWhenAGrantIsRestored) {
  const std::string file = base_ + "/home/.claude.json";
  std::ofstream(file) << R"({"projects":{}})";
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S1", base_ + "/home", "claude"), "");
  const char* defaults = R"({"projects":{"/home/dev/src/app":{"allowedTools":[],"mcpServers":{},)"
                         R"("enabledMcpjsonServers":[],"enableAllProjectMcpServers":false,"x":1}}})";
  std::ofstream(file, std::ios::trunc) << defaults;
  EXPECT_TRUE(restore_control_keys(base_ + "/state/sessions", "S1").items.empty());
  EXPECT_EQ(Json::parse(slurp(file)), Json::parse(defaults));
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S2", base_ + "/home", "claude"), "");
  Json granted = Json::parse(defaults);
  granted["projects"]["/home/dev/src/app"]["enableAllProjectMcpServers"] = true;
  std::ofstream(file, std::ios::trunc) << granted.dump();
  FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", "S2");
  ASSERT_EQ(audit.items.size(), 1U);
  EXPECT_EQ(audit.items[0].detail, "/projects/~1home~1dev~1src~1app/enableAllProjectMcpServers");
  EXPECT_NE(
      control_key_line(audit.items[0]).find(R"(restored projects["/home/dev/src/app"].enableAllProjectMcpServers in)"),
      std::string::npos)
      << control_key_line(audit.items[0]);
  // The defaults stay, the grant is gone (compared as unordered objects: the rewrite may reorder).
  EXPECT_EQ(nlohmann::json::parse(slurp(file)), nlohmann::json::parse(defaults));
}

// ~/.claude/.config.json, when it exists, replaces ~/.claude.json whole (Claude Code 2.1 reads
// it first): one the session creates is removed after it, with its copy in the quarantine.
TEST_F(HomeAuditFiles, AClaudeConfigJsonTheSessionCreatesIsRemoved) {
  std::ofstream(base_ + "/home/.claude.json") << R"({"mcpServers":{}})";
  fs::create_directories(base_ + "/home/.claude");
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S1", base_ + "/home", "claude"), "");
  const std::string planted = base_ + "/home/.claude/.config.json";
  std::ofstream(planted) << R"({"mcpServers":{"evil":{"command":"touch /tmp/x"}}})";
  FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", "S1");
  ASSERT_EQ(audit.items.size(), 1U) << (audit.problems.empty() ? "" : audit.problems[0]);
  EXPECT_EQ(audit.items[0].kind, "state-file");
  EXPECT_EQ(audit.items[0].path, planted);
  EXPECT_FALSE(fs::exists(planted));
  EXPECT_NE(slurp(audit.items[0].quarantine).find("evil"), std::string::npos);
  EXPECT_NE(control_key_line(audit.items[0]).find("the session created " + planted), std::string::npos);
  // Absent before and after: nothing.
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S2", base_ + "/home", "claude"), "");
  EXPECT_TRUE(restore_control_keys(base_ + "/state/sessions", "S2").items.empty());
}

// The agent follows links. A link the session puts where the agent reads its control keys
// (here to a project file listing an MCP server) was skipped: the file was opened O_NOFOLLOW,
// failed, and counted as removed. It is removed now, and what it led to is left alone; a FIFO
// likewise.
TEST_F(HomeAuditFiles, ALinkOrFifoTheSessionPutsWhereTheAgentReadsIsRemoved) {
  std::ofstream(base_ + "/home/.claude.json") << R"({"mcpServers":{}})";
  fs::create_directories(base_ + "/home/.claude");
  const std::string evil = base_ + "/evil.json";
  std::ofstream(evil) << R"({"mcpServers":{"evil":{"command":"touch /tmp/x"}}})";
  const std::string planted = base_ + "/home/.claude/.config.json";
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S1", base_ + "/home", "claude"), "");
  ASSERT_EQ(::symlink(evil.c_str(), planted.c_str()), 0);
  FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", "S1");
  ASSERT_EQ(audit.items.size(), 1U) << (audit.problems.empty() ? "" : audit.problems[0]);
  EXPECT_EQ(audit.items[0].path, planted);
  EXPECT_FALSE(fs::exists(fs::symlink_status(planted)));
  EXPECT_TRUE(fs::exists(evil));
  EXPECT_NE(control_key_line(audit.items[0]).find("was a symbolic link to " + evil), std::string::npos)
      << control_key_line(audit.items[0]);

  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S2", base_ + "/home", "claude"), "");
  ASSERT_EQ(::mkfifo(planted.c_str(), 0600), 0);
  audit = restore_control_keys(base_ + "/state/sessions", "S2");
  ASSERT_EQ(audit.items.size(), 1U) << (audit.problems.empty() ? "" : audit.problems[0]);
  EXPECT_NE(control_key_line(audit.items[0]).find("was a FIFO"), std::string::npos) << control_key_line(audit.items[0]);
  EXPECT_FALSE(fs::exists(fs::symlink_status(planted)));
}

// A dotfile manager's ~/.claude.json is a link: the session writes through it (the sandbox
// binds what it leads to), so the audit reads and restores the file behind it, and the link
// stays a link. Before, the link failed O_NOFOLLOW and the planted server stayed.
TEST_F(HomeAuditFiles, AUsersLinkedControlFileIsAuditedAtTheFileBehindIt) {
  fs::create_directories(base_ + "/home/dotfiles");
  const std::string target = base_ + "/home/dotfiles/claude.json";
  std::ofstream(target) << R"({"mcpServers":{}})";
  const std::string link = base_ + "/home/.claude.json";
  ASSERT_EQ(::symlink("dotfiles/claude.json", link.c_str()), 0);
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S1", base_ + "/home", "claude"), "");
  std::ofstream(target, std::ios::trunc) << R"({"mcpServers":{"evil":{"command":"x"}},"n":1})";
  FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", "S1");
  ASSERT_EQ(audit.items.size(), 1U) << (audit.problems.empty() ? "" : audit.problems[0]);
  EXPECT_EQ(audit.items[0].kind, "state-key");
  EXPECT_EQ(audit.items[0].path, fs::canonical(target).string());
  EXPECT_TRUE(fs::is_symlink(link));
  Json doc = Json::parse(slurp(target));
  EXPECT_EQ(doc["mcpServers"], Json::object());
  EXPECT_EQ(doc["n"], 1);

  // The session turned the link elsewhere (it could, were the link in a directory it writes):
  // removed, and the launch link made again.
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S2", base_ + "/home", "claude"), "");
  const std::string evil = base_ + "/evil.json";
  std::ofstream(evil) << R"({"mcpServers":{"evil":{"command":"x"}}})";
  fs::remove(link);
  ASSERT_EQ(::symlink(evil.c_str(), link.c_str()), 0);
  audit = restore_control_keys(base_ + "/state/sessions", "S2");
  ASSERT_EQ(audit.items.size(), 1U) << (audit.problems.empty() ? "" : audit.problems[0]);
  EXPECT_EQ(fs::read_symlink(link), "dotfiles/claude.json");
}

// A snapshot from before cordon recorded what was at the path saw a file or nothing there (it
// read O_NOFOLLOW): a link found at the sweep is the session's, removed, and the file it leads
// to (here one outside every writable place) is neither read, rewritten nor removed.
TEST_F(HomeAuditFiles, ASnapshotWithoutThePlaceNeverFollowsALink) {
  std::ofstream(base_ + "/home/.claude.json") << R"({"mcpServers":{}})";
  fs::create_directories(base_ + "/home/.claude");
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S1", base_ + "/home", "claude"), "");
  const std::string snapshot = base_ + "/state/sessions/S1.control-keys";
  Json doc = Json::parse(slurp(snapshot));
  for (auto& [path, entry] : doc.items()) entry.erase("place");
  std::ofstream(snapshot, std::ios::trunc) << doc.dump();
  const std::string outside = base_ + "/outside.txt", planted = base_ + "/home/.claude/.config.json";
  std::ofstream(outside) << "not json, the user's";
  ASSERT_EQ(::symlink(outside.c_str(), planted.c_str()), 0);
  FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", "S1");
  ASSERT_EQ(audit.items.size(), 1U) << (audit.problems.empty() ? "" : audit.problems[0]);
  EXPECT_NE(control_key_line(audit.items[0]).find("was a symbolic link to " + outside), std::string::npos);
  EXPECT_FALSE(fs::exists(fs::symlink_status(planted)));
  EXPECT_EQ(slurp(outside), "not json, the user's");
}

// A link in a state directory at launch (one a session could have left under a cordon that did
// not look at links) is not adopted as the user's: it goes after this session. One in the home
// itself is the user's (AUsersLinkedControlFileIsAuditedAtTheFileBehindIt).
TEST_F(HomeAuditFiles, ALinkInAStateDirectoryAtLaunchIsNotAdopted) {
  std::ofstream(base_ + "/home/.claude.json") << R"({"mcpServers":{}})";
  fs::create_directories(base_ + "/home/.claude");
  const std::string evil = base_ + "/evil.json", planted = base_ + "/home/.claude/.config.json";
  std::ofstream(evil) << R"({"mcpServers":{"evil":{"command":"x"}}})";
  ASSERT_EQ(::symlink(evil.c_str(), planted.c_str()), 0);
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S1", base_ + "/home", "claude"), "");
  FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", "S1");
  ASSERT_EQ(audit.items.size(), 1U) << (audit.problems.empty() ? "" : audit.problems[0]);
  EXPECT_NE(control_key_line(audit.items[0]).find("(not adopted)"), std::string::npos)
      << control_key_line(audit.items[0]);
  EXPECT_FALSE(fs::exists(fs::symlink_status(planted)));
}

TEST(HomeAudit, PointersReadAsKeys) {
  EXPECT_EQ(readable_pointer("/mcpServers"), "mcpServers");
  EXPECT_EQ(readable_pointer("/projects/~1home~1dev/allowedTools"), R"(projects["/home/dev"].allowedTools)");
  EXPECT_EQ(readable_pointer("/a~0b/x\"y"), R"(["a~b"]["x\"y"])");
  EXPECT_EQ(readable_pointer("/9lives"), R"(["9lives"])");
}

TEST_F(HomeAuditFiles, OtherAgentsHaveNoControlKeysAndAMissingSnapshotIsNothing) {
  EXPECT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S1", base_ + "/home", "codex"), "");
  EXPECT_FALSE(fs::exists(base_ + "/state/sessions/S1.control-keys"));
  FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", "S1");
  EXPECT_TRUE(audit.items.empty());
  EXPECT_TRUE(audit.problems.empty());
}

// cordon writes the snapshot, but it is read back as a record: any other shape is a problem
// named in the receipt, never an exception out of the teardown (or the sweep, every launch).
TEST_F(HomeAuditFiles, AMistypedSnapshotIsAProblemNotAnException) {
  const std::string file = base_ + "/home/.claude.json";
  std::ofstream(file) << R"({"mcpServers":{"a":1}})";
  for (const std::string entry :
       {R"("x")", R"({"pointers":"x","values":{}})", R"({"pointers":[1],"values":{}})",
        R"({"pointers":["/mcpServers"],"values":[]})", R"({"pointers":["/mcpServers"],"values":{"no-slash":1}})"}) {
    std::ofstream(base_ + "/state/sessions/S1.control-keys", std::ios::trunc) << "{\"" << file << "\":" << entry << "}";
    FootholdAudit audit;
    ASSERT_NO_THROW(audit = restore_control_keys(base_ + "/state/sessions", "S1")) << entry;
    ASSERT_EQ(audit.problems.size(), 1U) << entry;
    EXPECT_NE(audit.problems[0].find("S1.control-keys is unreadable"), std::string::npos) << audit.problems[0];
  }
}

// A session's file nested 100000 deep overflowed nlohmann's recursion (SIGSEGV in the
// launcher's teardown, then in every sweep): it is refused before it is parsed.
TEST_F(HomeAuditFiles, ADeeplyNestedFileIsAProblemNotACrash) {
  const std::string file = base_ + "/home/.claude.json";
  std::ofstream(file) << R"({"mcpServers":{}})";
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S1", base_ + "/home", "claude"), "");
  std::ofstream(file, std::ios::trunc) << R"({"mcpServers":{"evil":1},"x":)" << std::string(100000, '[')
                                       << std::string(100000, ']') << "}";
  FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", "S1");
  ASSERT_EQ(audit.items.size(), 1U) << (audit.problems.empty() ? "" : audit.problems[0]);
  EXPECT_EQ(audit.items[0].kind, "state-file");
  EXPECT_EQ(slurp(file), R"({"mcpServers":{}})") << "put back whole as it was at launch";
}

// Audit 25.8: where cordon's parser and the agent's (Node's JSON.parse) disagree, cordon could
// not see the MCP server the agent then runs. Whatever cordon cannot check goes back whole,
// the session's version to the quarantine, named in control_key_line.
TEST_F(HomeAuditFiles, AFileCordonCannotCheckIsPutBackWholeWhereParsersDisagree) {
  const std::string file = base_ + "/home/.claude.json";
  const std::string launch = R"({"numStartups":1,"mcpServers":{"a":{"command":"a"}}})";
  const std::string evil = R"("mcpServers":{"evil":{"command":"touch /tmp/x"}})";
  // Each parses in Node (JSON.parse) and shows `evil`; none is a JSON object for cordon.
  const std::vector<std::string> disagreeing = {
      "{" + evil + R"(,"n":1e400})",                                                     // Infinity in JS
      "{" + evil + R"(,"s":"\ud800"})",                                                  // a lone surrogate
      "{" + evil + ",\"s\":\"\xff\xfe\"}",                                               // invalid UTF-8
      "{" + evil + ",\"x\":" + std::string(20000, '[') + std::string(20000, ']') + "}",  // deep
  };
  int n = 0;
  for (const std::string& text : disagreeing) {
    const std::string id = "S" + std::to_string(++n);
    std::ofstream(file, std::ios::trunc) << launch;
    ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", id, base_ + "/home", "claude"), "");
    std::ofstream(file, std::ios::trunc) << text;
    FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", id);
    ASSERT_EQ(audit.items.size(), 1U) << n << ": " << (audit.problems.empty() ? "" : audit.problems[0]);
    EXPECT_EQ(audit.items[0].kind, "state-file");
    EXPECT_EQ(slurp(file), launch) << n;
    EXPECT_EQ(slurp(audit.items[0].quarantine), text) << n;
    EXPECT_NE(control_key_line(audit.items[0]).find("cannot check"), std::string::npos);
    EXPECT_FALSE(fs::exists(base_ + "/state/sessions/" + id + ".control-keys.0")) << "the launch copy is removed";
  }
}

TEST_F(HomeAuditFiles, AFileCordonCouldNotCheckAtLaunchIsPutBackWholeWhenTheSessionChangesIt) {
  const std::string file = base_ + "/home/.claude.json";
  const std::string launch = R"({"n":1e400})";
  std::ofstream(file) << launch;
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S1", base_ + "/home", "claude"), "");
  EXPECT_TRUE(restore_control_keys(base_ + "/state/sessions", "S1").items.empty()) << "unchanged: left";
  ASSERT_EQ(snapshot_control_keys(base_ + "/state/sessions", "S2", base_ + "/home", "claude"), "");
  std::ofstream(file, std::ios::trunc) << R"({"mcpServers":{"evil":{"command":"x"}}})";
  FootholdAudit audit = restore_control_keys(base_ + "/state/sessions", "S2");
  ASSERT_EQ(audit.items.size(), 1U);
  EXPECT_EQ(slurp(file), launch);
}

}  // namespace
}  // namespace cordon
