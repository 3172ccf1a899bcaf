// Workspace footholds (issue 12 section 1): what an agent plants in the workspace for the
// operator's own git to run on the host later. Git keeps working inside; config and hooks are
// read-only; what did not exist at launch (a `git init` inside) is quarantined at teardown, by
// the launcher or, after a SIGKILL, by `cordon sessions gc`. Every test then runs git on the
// HOST and looks for the marker the planted code would create. Root and the test user.
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

class Footholds : public LaunchFixture {
 protected:
  void SetUp() override {
    stage("/tmp/cordon-fh-", "/var/tmp/cordon-fh-prefix-");
    if (IsSkipped() || HasFatalFailure()) return;
    outside_ = std::make_unique<TempDir>("/var/tmp/cordon-fh-");
    remote_ = outside_->path() + "/remote.git";
    marker_ = outside_->path() + "/planted-code-ran";
    write_file(config_,
               "[network]\negress_jail = false\n[git]\nname = \"Agent\"\nemail = \"agent@example.invalid\"\n"
               "[filesystem]\nwritable = [\"" +
                   remote_ + "\"]\n");
    make_workspace();
    fs::create_directories(remote_);
    chown_tree(outside_->path(), who_.uid, who_.gid);
  }

  RunOptions as_who() { return operator_in(who_, workspace_); }

  // The operator's shell on the host, in the workspace.
  RunResult host(const std::string& script) { return run({"/bin/sh", "-c", script}, as_who()); }

  std::vector<std::string> cordon_argv(const std::vector<std::string>& cordon_args, const std::string& script) {
    std::vector<std::string> argv = {cordon_, "--config", config_, "run", "--workspace", workspace_};
    argv.insert(argv.end(), cordon_args.begin(), cordon_args.end());
    argv.insert(argv.end(), {"--", "/bin/sh", "-c", script});
    return argv;
  }

  RunResult sandbox(const std::string& script, const std::vector<std::string>& cordon_args = {}) {
    return run(cordon_argv(cordon_args, script), as_who());
  }

  // A repository with one commit and a bare remote outside the workspace.
  void make_repo() {
    RunResult r = host(
        "git init -q -b main . && echo a > a.txt && git add a.txt && git commit -qm one && "
        "git init -q --bare " +
        remote_ + " && git remote add origin " + remote_ + " && git push -q origin main && echo 'export X=1' > .envrc");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }

  // Everything an agent would plant, each way it might try; `|| true`: each may fail.
  std::string plant_script(bool move_hooks = true) const {
    const std::string touch = "touch " + marker_;
    return "git config core.fsmonitor '" + touch +
           "' 2>/dev/null; "
           "printf '[core]\\n\\tfsmonitor = \"" +
           touch +
           "\"\\n' >> .git/config 2>/dev/null; "
           "printf '[alias]\\n\\tst = \"!" +
           touch +
           "\"\\n' >> .git/config 2>/dev/null; "
           "printf '[filter \"x\"]\\n\\tclean = \"" +
           touch +
           "; cat\"\\n' >> .git/config 2>/dev/null; "
           "echo '* filter=x' > .gitattributes; "
           "printf '#!/bin/sh\\n" +
           touch +
           "\\n' > .git/hooks/pre-commit 2>/dev/null; "
           "chmod +x .git/hooks/pre-commit 2>/dev/null; "
           "printf '#!/bin/sh\\n" +
           touch +
           "\\n' > .git/hooks/post-commit 2>/dev/null; "
           "chmod +x .git/hooks/post-commit 2>/dev/null; " +
           std::string(move_hooks ? "mv .git/hooks .git/hooks-old 2>/dev/null && mkdir .git/hooks; " : "") + "echo '" +
           touch + "' >> .envrc 2>/dev/null; true";
  }

  // The operator's routine commands on the host afterwards.
  void host_git_routine() {
    RunResult r = host(
        "git status >/dev/null 2>&1; echo b >> a.txt; git commit -qam host 2>&1; git st 2>/dev/null; "
        "true");
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }

  Json last_receipt() {
    std::set<std::string> records = session_records(who_, workspace_);
    if (records.empty()) return Json();
    std::vector<Json> lines = record_lines(*records.rbegin());
    return lines.size() >= 2 ? lines[1]["receipt"] : Json();
  }

  std::unique_ptr<TempDir> outside_;
  std::string remote_, marker_;
};

TEST_P(Footholds, GitStillWorksInsideButItsConfigIsReadOnly) {
  make_repo();
  RunResult r = sandbox(
      "set -e; echo c >> a.txt; git commit -qam two; git branch feature; git checkout -q feature; "
      "echo f > f.txt; git add f.txt; git commit -qm feature; git checkout -q main; echo m > m.txt; git add m.txt; "
      "git commit -qm main; echo dirty >> a.txt; git stash -q; git stash pop -q; git checkout -q a.txt; "
      "git checkout -q feature; git rebase -q main; git checkout -q main; git fetch -q origin; git push -q origin "
      "feature; git log --oneline | wc -l; if git config core.fsmonitor x 2>/dev/null; then echo CONFIG-WRITTEN; fi");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("CONFIG-WRITTEN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3"), std::string::npos) << r.out;
  RunResult remote = host("git --git-dir=" + remote_ + " log --oneline feature | wc -l");
  EXPECT_NE(remote.out.find("4"), std::string::npos) << remote.out << remote.err;
}

TEST_P(Footholds, PlantedFootholdsNeverRunOnTheHost) {
  make_repo();
  RunResult r = sandbox(plant_script());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  host_git_routine();
  EXPECT_FALSE(path_exists(marker_)) << "planted code ran on the host";
  EXPECT_EQ(read_file(workspace_ + "/.envrc"), "export X=1\n");
}

// The control: without the read-only binds the same plant runs on the host.
TEST_P(Footholds, ControlWithWritableFootholdsThePlantedCodeRunsOnTheHost) {
  make_repo();
  RunResult r = sandbox(plant_script(), {"--test-weaken", "writable-footholds"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  host_git_routine();
  EXPECT_TRUE(path_exists(marker_)) << "the control planted nothing that ran";
}

TEST_P(Footholds, AGitInitInsideIsQuarantinedAtTeardown) {
  // plant_script's own `git config core.fsmonitor` lands here: nothing was bound at launch.
  RunResult r = sandbox("git init -q . && " + plant_script(false) + " && echo planted > .envrc");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("cordon: quarantined .git/hooks/pre-commit written during the session"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("rewrote .git/config"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(".envrc appeared during the session"), std::string::npos) << r.err;
  host(
      "git add a.txt 2>/dev/null; git status >/dev/null 2>&1; echo z > z.txt; git add z.txt; git commit -qm host; "
      "true");
  host_git_routine();
  EXPECT_FALSE(path_exists(marker_)) << "planted code ran on the host";
  Json receipt = last_receipt();
  ASSERT_TRUE(receipt.is_object());
  const Json& items = receipt["workspace_audit"]["items"];
  ASSERT_TRUE(items.is_array());
  std::set<std::string> kinds;
  for (const auto& item : items) kinds.insert(item["kind"].get<std::string>());
  EXPECT_EQ(kinds, (std::set<std::string>{"hook", "config", "protect"})) << items.dump();
  fs::path quarantine = fs::path(workspace_) / ".git/cordon-quarantine";
  ASSERT_TRUE(fs::is_directory(quarantine));
  bool saw_hook = false;
  for (const auto& e : fs::recursive_directory_iterator(quarantine)) saw_hook |= e.path().filename() == "pre-commit";
  EXPECT_TRUE(saw_hook);
}

// The first line: the session keeper sweeps at once, in its Landlock domain (record/sweep_reach.h),
// so every step of the audit (the hook moved to .git's quarantine, .git/config rewritten, the
// new .envrc named) must be inside what the reach grants: none may come back as a problem.
TEST_P(Footholds, ASigkilledLaunchersSessionIsAuditedByItsConfinedKeeper) {
  const std::string planted = workspace_ + "/planted";
  pid_t pid = spawn_background(
      cordon_argv({}, "git init -q . && " + plant_script(false) + " && touch planted && sleep 60"), as_who());
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(wait_for_path(planted, 6000));
  ::kill(pid, SIGKILL);
  stop_background(pid);
  Json receipt;
  for (int i = 0; i < 250 && !receipt.is_object(); ++i) {  // the keeper sweeps within a second
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    receipt = last_receipt();
  }
  ASSERT_TRUE(receipt.is_object()) << "the keeper closed no record";
  EXPECT_TRUE(receipt.contains("crashed"));
  EXPECT_TRUE(receipt["workspace_audit"]["problems"].empty()) << receipt.dump();
  EXPECT_TRUE(receipt["permissions_audit"]["problems"].empty()) << receipt.dump();
  EXPECT_EQ(receipt["teardown"]["verified"], true) << receipt.dump();
  std::set<std::string> kinds;
  for (const auto& item : receipt["workspace_audit"]["items"]) kinds.insert(item["kind"].get<std::string>());
  EXPECT_EQ(kinds, (std::set<std::string>{"hook", "config", "protect"})) << receipt.dump();
  EXPECT_FALSE(path_exists(workspace_ + "/.git/hooks/pre-commit")) << "the hook stayed where git runs it";
  host_git_routine();
  EXPECT_FALSE(path_exists(marker_)) << "planted code ran on the host";
}

// The second line: without the session keeper (a test hook), the next `sessions gc` does it.
TEST_P(Footholds, ASigkilledLaunchersSessionIsAuditedBySessionsGc) {
  const std::string planted = workspace_ + "/planted";
  RunOptions without_keeper = as_who();
  without_keeper.env["CORDON_TEST_NO_SESSION_KEEPER"] = "1";
  pid_t pid = spawn_background(
      cordon_argv({}, "git init -q . && " + plant_script(false) + " && touch planted && sleep 60"), without_keeper);
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 300 && !path_exists(planted); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(path_exists(planted));
  ::kill(pid, SIGKILL);
  stop_background(pid);
  ASSERT_TRUE(path_exists(workspace_ + "/.git/hooks/pre-commit"));  // nothing audited it yet
  RunResult gc = run({cordon_, "--config", config_, "sessions", "gc"}, as_who());
  EXPECT_EQ(gc.exit_code, 0) << gc.out << gc.err;
  EXPECT_NE((gc.out + gc.err).find("quarantined .git/hooks/pre-commit"), std::string::npos) << gc.out << gc.err;
  host_git_routine();
  EXPECT_FALSE(path_exists(marker_)) << "planted code ran on the host";
  Json receipt = last_receipt();
  ASSERT_TRUE(receipt.is_object());
  EXPECT_TRUE(receipt.contains("crashed"));
  EXPECT_FALSE(receipt["workspace_audit"]["items"].empty());
}

TEST_P(Footholds, Check29PassesAndFailsWithWritableFootholds) {
  make_repo();
  const std::string battery = prefix_->path() + "/libexec/cordon/cordon-battery";
  RunResult ok = run(cordon_argv({}, battery + " --only 29"), as_who());
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  RunResult weak = run(cordon_argv({"--test-weaken", "writable-footholds"}, battery + " --only 29"), as_who());
  EXPECT_EQ(weak.exit_code, 1) << weak.out << weak.err;
  EXPECT_NE(weak.out.find(workspace_ + "/.git/config"), std::string::npos) << weak.out;
}

TEST_P(Footholds, Probe32IsBlockedAndEscapesWithWritableFootholds) {
  make_repo();
  const std::string probe = prefix_->path() + "/libexec/cordon/cordon-probe";
  RunResult ok = run(cordon_argv({}, probe + " --only 32"), as_who());
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("[BLOCKED] 32"), std::string::npos) << ok.out;
  RunResult weak = run(cordon_argv({"--test-weaken", "writable-footholds"}, probe + " --only 32"), as_who());
  EXPECT_EQ(weak.exit_code, 3) << weak.out << weak.err;
  EXPECT_NE(weak.out.find("[ESCAPED] 32"), std::string::npos) << weak.out;
  host_git_routine();
  EXPECT_FALSE(path_exists("/tmp/cordon-probe-32-ran"));
}

TEST_P(Footholds, ASymlinkedHooksDirectoryRefusesTheLaunch) {
  make_repo();
  fs::remove_all(workspace_ + "/.git/hooks");
  fs::create_directory_symlink("/", workspace_ + "/.git/hooks");
  RunResult r = sandbox("true");
  EXPECT_EQ(r.exit_code, 125) << r.err;
  EXPECT_NE(r.err.find("symbolic link"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(As, Footholds, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
