// The teardown audit's config filter parses as git does and keeps only keys that cannot run code.
#include "launcher/workspace/git_config_filter.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

TEST(GitConfigFilter, AFreshInitConfigIsClean) {
  const std::string text =
      "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";
  GitConfigScan scan = scan_git_config(text);
  EXPECT_TRUE(scan.clean());
  EXPECT_EQ(scan.allowed, 4U);
}

TEST(GitConfigFilter, CodeRunningKeysAreRefusedAndTheRestKept) {
  GitConfigScan scan = scan_git_config(
      "[core]\n\tbare = false\n\tfsmonitor = touch /tmp/m\n\thooksPath = /tmp\n[alias]\n\tco = !sh -c x\n"
      "[filter \"lfs\"]\n\tclean = sh -c x\n[remote \"origin\"]\n\turl = /srv/r.git\n\tfetch = +refs/*:refs/*\n"
      "\tuploadpack = sh -c x\n[user]\n\tname = A\n");
  EXPECT_EQ(scan.refused, (std::vector<std::string>{"core.fsmonitor", "core.hookspath", "alias.co", "filter.lfs.clean",
                                                    "remote.origin.uploadpack"}));
  EXPECT_EQ(scan.filtered,
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = /srv/r.git\n\tfetch = +refs/*:refs/*\n"
            "[user]\n\tname = A\n");
}

TEST(GitConfigFilter, KeyNamesAreCaseInsensitiveSubsectionsAreNot) {
  GitConfigScan scan = scan_git_config("[CORE]\n\tFSMonitor = x\n[Remote \"Or\\\"g\"]\n\tURL = a\n");
  EXPECT_EQ(scan.refused, std::vector<std::string>{"core.fsmonitor"});
  EXPECT_EQ(scan.filtered, "[remote \"Or\\\"g\"]\n\tURL = a\n");
}

TEST(GitConfigFilter, TheOldDottedFormIsParsed) {
  GitConfigScan scan = scan_git_config("[remote.Origin]\n\turl = a\n[alias.x]\n\ty = z\n");
  EXPECT_EQ(scan.refused, std::vector<std::string>{"alias.x.y"});
  EXPECT_EQ(scan.filtered, "[remote \"origin\"]\n\turl = a\n");
}

TEST(GitConfigFilter, AKeyOnTheHeaderLineIsSeen) {
  GitConfigScan scan = scan_git_config("[core] fsmonitor = \"touch /tmp/m\"\n[user] name = A\n");
  EXPECT_EQ(scan.refused, std::vector<std::string>{"core.fsmonitor"});
  EXPECT_EQ(scan.filtered, "[user]\n\tname = A\n");
}

TEST(GitConfigFilter, ContinuationLinesBelongToTheirKey) {
  // The continued line looks like a key of its own ("fsmonitor = ..."), but is alias.x's value.
  GitConfigScan scan = scan_git_config(
      "[user]\n\tname = a \\\nfsmonitor = b\n[core]\n\tbare = \"x\\\\\"\n\tsymlinks = t\n");
  EXPECT_TRUE(scan.clean()) << scan.refused.front();
  EXPECT_EQ(scan.filtered, "[user]\n\tname = a \\\nfsmonitor = b\n[core]\n\tbare = \"x\\\\\"\n\tsymlinks = t\n");
  // A backslash in a comment does not continue; an escaped one does not either.
  GitConfigScan commented = scan_git_config("[user]\n\tname = a # x \\\n[core]\n\tfsmonitor = y\n");
  EXPECT_EQ(commented.refused, std::vector<std::string>{"core.fsmonitor"});
}

TEST(GitConfigFilter, CommentsAndQuotedHashesAreHandled) {
  GitConfigScan scan = scan_git_config("# c\n; c\n[user] # c\n\temail = \"a#b;c\" ; c\n");
  EXPECT_TRUE(scan.clean());
  EXPECT_EQ(scan.filtered, "[user]\n\temail = \"a#b;c\" ; c\n");
}

TEST(GitConfigFilter, IncludesAreNeverAllowed) {
  EXPECT_FALSE(scan_git_config("[include]\n\tpath = /tmp/x\n").clean());
  EXPECT_FALSE(scan_git_config("[includeIf \"gitdir:/\"]\n\tpath = /tmp/x\n").clean());
  EXPECT_FALSE(git_config_key_allowed("include", false, "path"));
}

TEST(GitConfigFilter, WhatCannotBeParsedIsRefused) {
  EXPECT_FALSE(scan_git_config("fsmonitor = x\n").clean());           // no section
  EXPECT_FALSE(scan_git_config("[core\n\tbare = true\n").clean());    // malformed header
  EXPECT_FALSE(scan_git_config("[core]\n\t1bare = true\n").clean());  // not a key name
  GitConfigScan after_bad = scan_git_config("[co re]\n\tbare = true\n");
  EXPECT_FALSE(after_bad.clean());
  EXPECT_EQ(after_bad.allowed, 0U);
}

TEST(GitConfigFilter, AllowListNeedsTheRightShape) {
  EXPECT_TRUE(git_config_key_allowed("remote", true, "url"));
  EXPECT_FALSE(git_config_key_allowed("remote", false, "url"));
  EXPECT_FALSE(git_config_key_allowed("core", true, "bare"));
  EXPECT_TRUE(git_config_key_allowed("extensions", false, "objectformat"));
  EXPECT_FALSE(git_config_key_allowed("extensions", false, "worktreeconfig"));
}

}  // namespace
}  // namespace cordon
