// The foothold plan on a fake tree (pure), the real walk that never follows a link, and the
// teardown audit that quarantines what the launch could not protect.
#include "launcher/workspace/footholds.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/error.h"
#include "launcher/workspace/foothold_audit.h"

namespace cordon {
namespace {

namespace fs = std::filesystem;

// A workspace as a map: "d" directories, "f" files (with content), "l" links.
class FakeTree : public TreeView {
 public:
  FakeTree& dir(const std::string& rel) { return put(rel, EntryKind::Directory, ""); }
  FakeTree& file(const std::string& rel, const std::string& text = "") { return put(rel, EntryKind::File, text); }
  FakeTree& link(const std::string& rel) { return put(rel, EntryKind::Symlink, ""); }

  EntryKind kind(const std::string& rel) const override {
    for (auto slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1)) {
      auto it = entries_.find(rel.substr(0, slash));
      if (it != entries_.end() && it->second.first == EntryKind::Symlink) return EntryKind::Symlink;
    }
    auto it = entries_.find(rel);
    return it == entries_.end() ? EntryKind::Missing : it->second.first;
  }
  std::vector<std::string> list(const std::string& rel) const override {
    std::vector<std::string> names;
    for (const auto& [path, entry] : entries_)
      if (path.rfind(rel + "/", 0) == 0 && path.find('/', rel.size() + 1) == std::string::npos)
        names.push_back(path.substr(rel.size() + 1));
    return names;
  }
  std::string read(const std::string& rel) const override {
    auto it = entries_.find(rel);
    return it == entries_.end() ? "" : it->second.second;
  }

 private:
  FakeTree& put(const std::string& rel, EntryKind kind, const std::string& text) {
    entries_[rel] = {kind, text};
    return *this;
  }
  std::map<std::string, std::pair<EntryKind, std::string>> entries_;
};

const std::string kWs = "/src/app";

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::vector<std::string> no_protect() { return {}; }

TEST(GitFootholds, ARepositorysConfigAndHooksAreBoundReadOnlyAfterItsGitDirIsPinned) {
  FakeTree t;
  t.dir(".git").file(".git/HEAD").file(".git/config").dir(".git/hooks").file(".git/hooks/pre-commit.sample");
  FootholdPlan plan = plan_footholds(kWs, no_protect(), t);
  ASSERT_TRUE(plan.refusal.empty()) << plan.refusal;
  std::vector<std::string> args = foothold_mount_args(plan);
  std::vector<std::string> expected = {"--bind",    kWs + "/.git",        kWs + "/.git",
                                       "--ro-bind", kWs + "/.git/config", kWs + "/.git/config",
                                       "--ro-bind", kWs + "/.git/hooks",  kWs + "/.git/hooks"};
  EXPECT_EQ(args, expected);
  EXPECT_TRUE(plan.create_hooks.empty());
}

TEST(GitFootholds, AMissingHooksDirectoryIsMadeAtLaunchAndBound) {
  FakeTree t;
  t.dir(".git").file(".git/HEAD").file(".git/config");
  FootholdPlan plan = plan_footholds(kWs, no_protect(), t);
  EXPECT_EQ(plan.create_hooks, std::vector<std::string>{kWs + "/.git/hooks"});
  EXPECT_TRUE(has(plan.protected_paths, kWs + "/.git/hooks"));
}

TEST(GitFootholds, WorktreesSubmodulesAndNestedSubmodulesAreProtected) {
  FakeTree t;
  t.dir(".git").file(".git/config").dir(".git/hooks").file(".git/config.worktree");
  t.dir(".git/worktrees").dir(".git/worktrees/wt").file(".git/worktrees/wt/config.worktree");
  t.file(".git/worktrees/wt/commondir", "../..\n");
  t.dir(".git/modules").dir(".git/modules/libs").dir(".git/modules/libs/a").file(".git/modules/libs/a/HEAD");
  t.file(".git/modules/libs/a/config").dir(".git/modules/libs/a/hooks");
  t.dir(".git/modules/libs/a/modules").dir(".git/modules/libs/a/modules/b").file(".git/modules/libs/a/modules/b/HEAD");
  t.file(".git/modules/libs/a/modules/b/config");
  FootholdPlan plan = plan_footholds(kWs, no_protect(), t);
  ASSERT_TRUE(plan.refusal.empty()) << plan.refusal;
  for (const char* rel : {".git/config.worktree", ".git/worktrees/wt/config.worktree", ".git/worktrees/wt/commondir",
                          ".git/modules/libs/a/config", ".git/modules/libs/a/hooks",
                          ".git/modules/libs/a/modules/b/config", ".git/modules/libs/a/modules/b/hooks"})
    EXPECT_TRUE(has(plan.protected_paths, kWs + "/" + rel)) << rel;
  EXPECT_TRUE(has(plan.create_hooks, kWs + "/.git/modules/libs/a/modules/b/hooks"));
  EXPECT_FALSE(has(plan.protected_paths, kWs + "/.git/modules/libs/config"));
}

TEST(GitFootholds, AGitFileIsBoundAndItsGitDirInsideTheWorkspaceProtected) {
  FakeTree t;
  t.file(".git", "gitdir: /src/app/.bare/worktrees/main\n").dir(".bare").file(".bare/config").dir(".bare/hooks");
  t.dir(".bare/worktrees").dir(".bare/worktrees/main").file(".bare/worktrees/main/commondir", "../..\n");
  FootholdPlan plan = plan_footholds(kWs, no_protect(), t);
  ASSERT_TRUE(plan.refusal.empty()) << plan.refusal;
  for (const char* rel : {".git", ".bare/config", ".bare/hooks", ".bare/worktrees/main/commondir"})
    EXPECT_TRUE(has(plan.protected_paths, kWs + "/" + rel)) << rel;
}

TEST(GitFootholds, AGitFileNamingAGitDirOutsideTheWorkspaceBindsOnlyTheFile) {
  FakeTree t;
  t.file(".git", "gitdir: ../other/.git/worktrees/x\n");
  FootholdPlan plan = plan_footholds(kWs, no_protect(), t);
  EXPECT_EQ(plan.protected_paths, std::vector<std::string>{kWs + "/.git"});
}

TEST(GitFootholds, SymlinksRefuseTheLaunchWithAFix) {
  for (const char* link : {".git", ".git/hooks", ".git/config", ".git/modules/m", ".vscode"}) {
    FakeTree t;
    t.dir(".git").file(".git/config").dir(".git/hooks").dir(".git/modules");
    t.link(link);
    FootholdPlan plan = plan_footholds(kWs, {".vscode"}, t);
    EXPECT_NE(plan.refusal.find("symbolic link"), std::string::npos) << link;
    EXPECT_NE(plan.refusal.find(link), std::string::npos) << plan.refusal;
    EXPECT_FALSE(plan.refusal_fix.empty());
    EXPECT_THROW(foothold_mount_args(plan), Error);
  }
}

TEST(GitFootholds, TooDeepASubmoduleNestingIsRefused) {
  FakeTree t;
  std::string dir = ".git";
  t.dir(dir).file(dir + "/config");
  for (int i = 0; i <= kMaxModuleDepth; ++i) {
    dir += "/modules/m";
    t.dir(dir.substr(0, dir.size() - 2)).dir(dir).file(dir + "/HEAD");
  }
  FootholdPlan plan = plan_footholds(kWs, no_protect(), t);
  EXPECT_NE(plan.refusal.find("nest deeper"), std::string::npos) << plan.refusal;
}

TEST(GitFootholds, ProtectEntriesAreBoundWhenPresentAndNamedWhenAbsent) {
  FakeTree t;
  t.file(".envrc").dir(".vscode");
  FootholdPlan plan = plan_footholds(kWs, {".envrc", "./.vscode/", ".idea"}, t);
  EXPECT_TRUE(has(plan.protected_paths, kWs + "/.envrc"));
  EXPECT_TRUE(has(plan.protected_paths, kWs + "/.vscode"));
  EXPECT_EQ(plan.absent, std::vector<std::string>{kWs + "/.idea"});
  EXPECT_TRUE(plan.binds.size() == 2 && !plan.binds[0].pin);
}

TEST(GitFootholds, NoRepositoryNoBinds) {
  FakeTree t;
  FootholdPlan plan = plan_footholds(kWs, no_protect(), t);
  EXPECT_TRUE(plan.binds.empty());
  EXPECT_TRUE(plan.refusal.empty());
}

TEST(GitFootholds, PointerTargetsResolveInsideTheWorkspaceOnly) {
  EXPECT_EQ(pointer_target(kWs, "", "gitdir: .git/worktrees/x\n", true), ".git/worktrees/x");
  EXPECT_EQ(pointer_target(kWs, ".git/worktrees/x", "../..\n", false), ".git");
  EXPECT_EQ(pointer_target(kWs, "", "gitdir: /src/app/../other/.git", true), "");
  EXPECT_EQ(pointer_target(kWs, "", "gitdir: /src/application/.git", true), "");
  EXPECT_EQ(pointer_target(kWs, "", "not a pointer", true), "");
}

// The real tree: a temporary workspace.
class WorkspaceFootholds : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cordon-footholds-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    ws_ = tmpl;
  }
  void TearDown() override { fs::remove_all(ws_); }
  void write(const std::string& rel, const std::string& text, mode_t mode = 0644) {
    fs::create_directories(fs::path(ws_ + "/" + rel).parent_path());
    std::ofstream(ws_ + "/" + rel) << text;
    ::chmod((ws_ + "/" + rel).c_str(), mode);
  }
  std::string read(const std::string& path) const {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  bool exists(const std::string& rel) const {
    struct stat st {};
    return ::lstat((ws_ + "/" + rel).c_str(), &st) == 0;
  }
  std::string ws_;
};

TEST_F(WorkspaceFootholds, TheRealWalkSeesLinksAnywhereOnThePath) {
  fs::create_directories(ws_ + "/.git");
  fs::create_directory_symlink("/etc", ws_ + "/.git/hooks");
  WorkspaceTree tree(ws_);
  EXPECT_EQ(tree.kind(".git"), EntryKind::Directory);
  EXPECT_EQ(tree.kind(".git/hooks"), EntryKind::Symlink);
  EXPECT_EQ(tree.kind(".git/hooks/passwd"), EntryKind::Symlink);
  EXPECT_TRUE(tree.list(".git/hooks").empty());
  FootholdPlan plan = gather_footholds(ws_, {});
  EXPECT_NE(plan.refusal.find(".git/hooks"), std::string::npos);
}

TEST_F(WorkspaceFootholds, MissingHooksAreMadeEmptyWithMode0755) {
  write(".git/HEAD", "ref: refs/heads/main\n");
  write(".git/config", "[core]\n\tbare = false\n");
  FootholdPlan plan = gather_footholds(ws_, {});
  ASSERT_EQ(plan.create_hooks.size(), 1U);
  ::umask(077);
  create_missing_hooks(ws_, plan);
  ::umask(022);
  struct stat st {};
  ASSERT_EQ(::lstat((ws_ + "/.git/hooks").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0755U);
}

TEST_F(WorkspaceFootholds, TheAuditQuarantinesHooksAndRewritesTheConfigOfANewRepository) {
  write(".git/HEAD", "ref: refs/heads/main\n");
  write(".git/config", "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch /tmp/x\n[alias]\n\tst = !sh\n");
  write(".git/hooks/pre-commit", "#!/bin/sh\ntouch /tmp/x\n", 0755);
  write(".git/hooks/pre-commit.sample", "#!/bin/sh\n", 0755);
  write(".envrc", "echo hi\n");
  FootholdAudit audit = audit_footholds(ws_, "S1", {}, {ws_ + "/.envrc", ws_ + "/.idea"});
  EXPECT_TRUE(audit.problems.empty()) << audit.problems.front();
  ASSERT_EQ(audit.items.size(), 3U);
  EXPECT_FALSE(exists(".git/hooks/pre-commit"));
  EXPECT_TRUE(exists(".git/hooks/pre-commit.sample"));
  const std::string q = ws_ + "/.git/cordon-quarantine/S1";
  struct stat st {};
  ASSERT_EQ(::stat((q + "/hooks/pre-commit").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0111, 0U);
  EXPECT_EQ(read(ws_ + "/.git/config"), "[core]\n\trepositoryformatversion = 0\n");
  EXPECT_NE(read(q + "/config").find("fsmonitor"), std::string::npos);
  EXPECT_EQ(audit.items[1].kind, "config");
  EXPECT_EQ(audit.items[1].detail, "core.fsmonitor, alias.st");
  EXPECT_EQ(audit.items[2].kind, "protect");
  EXPECT_EQ(audit_line(ws_, audit.items[0]),
            "quarantined .git/hooks/pre-commit written during the session (it would run on the host): see " + q +
                "/hooks/pre-commit");
}

TEST_F(WorkspaceFootholds, TheAuditLeavesWhatWasProtectedAndACleanConfigAlone) {
  write(".git/HEAD", "ref: refs/heads/main\n");
  write(".git/config", "[core]\n\tfsmonitor = touch /tmp/x\n");
  write(".git/hooks/pre-commit", "#!/bin/sh\n", 0755);
  write(".git/modules/m/HEAD", "x\n");
  write(".git/modules/m/config", "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = /srv/x\n");
  FootholdAudit audit = audit_footholds(ws_, "S2", {ws_ + "/.git/config", ws_ + "/.git/hooks"}, {});
  EXPECT_TRUE(audit.items.empty());
  EXPECT_TRUE(exists(".git/hooks/pre-commit"));
}

TEST_F(WorkspaceFootholds, TheAuditMovesPlantedLinksAndPointers) {
  write(".git/HEAD", "ref: refs/heads/main\n");
  write(".git/config", "");
  write(".git/commondir", "../evil\n");
  fs::create_directories(ws_ + "/evil");
  fs::create_directory_symlink(ws_ + "/evil", ws_ + "/.git/hooks");
  FootholdAudit audit = audit_footholds(ws_, "S3", {}, {});
  EXPECT_FALSE(exists(".git/commondir"));
  EXPECT_FALSE(exists(".git/hooks"));
  EXPECT_TRUE(exists("evil"));
  EXPECT_EQ(audit.items.size(), 2U);
}

TEST_F(WorkspaceFootholds, TheAuditMovesANewGitFilePointingOutside) {
  write(".git", "gitdir: /home/someone/.claude/evil\n");
  FootholdAudit audit = audit_footholds(ws_, "S4", {}, {});
  EXPECT_FALSE(exists(".git"));
  ASSERT_EQ(audit.items.size(), 1U);
  EXPECT_EQ(audit.items[0].quarantine, ws_ + "/.cordon-quarantine/S4/dot-git");
}

}  // namespace
}  // namespace cordon
