// Audit 25.6: a dangerous path under another name is still that path. A workspace (or a
// writable path) that is a bind mount of the home or of cordon's state directory, one with a
// writable mount of the home below it, one reached through /proc/self/fd, /proc/PID/cwd or a
// symlinked parent: each is refused before anything is launched, and the home stays unwritten.
// The controls: the same mounts of a harmless project directory are accepted, so the refusal
// is the identity's. Each case's mounts live in a mount namespace of its own (unshare -m), so
// nothing is left on the machine; cordon then runs in it as root or as the test user.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "launch_fixture.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

class PathAlias : public LaunchFixture {
 protected:
  void SetUp() override {
    stage("/tmp/cordon-alias-", "/var/tmp/cordon-alias-prefix-");
    if (IsSkipped() || HasFatalFailure()) return;
    if (::geteuid() != 0) GTEST_SKIP() << "mount namespaces with bind mounts need root";
    home_ = base_->path() + "/home";
    env_ = env_with_other_home(who_, home_);
    workspace_ = home_ + "/src/app";
    project_ = home_ + "/src/other";
    mnt_ = base_->path() + "/mnt";
    for (const auto& dir : {workspace_ + "/h", project_, mnt_ + "/a", mnt_ + "/b"}) fs::create_directories(dir);
    chown_tree(base_->path(), who_.uid, who_.gid);
    write_file(config_, "[network]\nmode = \"offline\"\n");
  }

  // `setup` (shell, as root, in a new mount namespace), then `cordon run [flags] -- touch
  // WHERE/planted` as the fixture's identity from the workspace.
  RunResult launch(const std::string& setup, const std::vector<std::string>& flags, const std::string& where) {
    std::vector<std::string> argv = {"/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
                                     setup + " && exec \"$@\"", "sh"};
    if (who_.uid != 0)
      for (auto& word : setpriv_as(who_)) argv.push_back(word);
    argv.insert(argv.end(), {cordon_, "--config", config_, "run"});
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"--", "/bin/sh", "-c", "touch " + where + "/planted"});
    RunOptions o;
    o.env = env_;
    o.cwd = workspace_;
    return run(argv, o);
  }

  void expect_refused(const RunResult& r, const std::string& why) {
    EXPECT_EQ(r.exit_code, 125) << r.out << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    EXPECT_FALSE(path_exists(home_ + "/planted")) << "the sandbox wrote into the home";
  }

  std::string home_, project_, mnt_;
  std::map<std::string, std::string> env_;
};

TEST_P(PathAlias, AWorkspaceThatIsABindMountOfTheHomeIsRefused) {
  expect_refused(launch("mount --bind " + home_ + " " + mnt_ + "/a", {"--workspace", mnt_ + "/a"}, mnt_ + "/a"),
                 "is your home directory (" + home_ + ") under another name");
  // The control: a bind mount of a project is a project.
  RunResult ok = launch("mount --bind " + project_ + " " + mnt_ + "/a", {"--workspace", mnt_ + "/a"}, mnt_ + "/a");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_TRUE(path_exists(project_ + "/planted"));
}

TEST_P(PathAlias, AWorkspaceThatIsABindMountOfAParentOfTheHomeIsRefused) {
  expect_refused(
      launch("mount --bind " + base_->path() + " " + mnt_ + "/a", {"--workspace", mnt_ + "/a"}, mnt_ + "/a/home"),
      "contains your home directory (" + home_ + ") under another name");
}

TEST_P(PathAlias, AWorkspaceThatIsABindMountOfCordonsStateIsRefused) {
  const std::string state = test_state_dir() + "/" + std::to_string(who_.uid);
  fs::create_directories(state);
  RunResult r = launch("mount --bind " + state + " " + mnt_ + "/b", {"--workspace", mnt_ + "/b"}, mnt_ + "/b");
  EXPECT_EQ(r.exit_code, 125) << r.out << r.err;
  EXPECT_NE(r.err.find("cordon's state directory"), std::string::npos) << r.err;
  EXPECT_FALSE(path_exists(state + "/planted"));
}

TEST_P(PathAlias, AWritableMountOfTheHomeBelowTheWorkspaceIsRefused) {
  expect_refused(launch("mount --bind " + home_ + " " + workspace_ + "/h", {}, workspace_ + "/h"),
                 "has a writable mount at " + workspace_ + "/h that is your home directory");
  // Read-only, it would still show the home: refused too.
  expect_refused(launch("mount --bind " + home_ + " " + workspace_ + "/h && mount -o remount,bind,ro " + workspace_ +
                            "/h",
                        {}, workspace_ + "/h"),
                 "the sandbox could read your home through it");
  // The control: a project mounted below the workspace comes along, as bwrap's bind is recursive.
  RunResult ok = launch("mount --bind " + project_ + " " + workspace_ + "/h", {}, workspace_ + "/h");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_TRUE(path_exists(project_ + "/planted"));
}

TEST_P(PathAlias, AWritablePathThatIsTheHomeUnderAnotherNameIsRefused) {
  write_file(config_, "[network]\nmode = \"offline\"\n[filesystem]\nwritable = [\"" + mnt_ + "/a\"]\n");
  chown_tree(config_, who_.uid, who_.gid);
  RunResult r = launch("mount --bind " + home_ + " " + mnt_ + "/a", {}, mnt_ + "/a");
  EXPECT_EQ(r.exit_code, 125) << r.out << r.err;
  EXPECT_NE(r.err.find("is your home directory (" + home_ + ") under another name"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(config_ + ":"), std::string::npos) << "a config refusal names its place: " << r.err;
  EXPECT_FALSE(path_exists(home_ + "/planted"));
}

TEST_P(PathAlias, ProcFdProcCwdAndSymlinkedParentsResolveToTheHome) {
  // /proc/self/fd/N: the shell opens the home on descriptor 7, which cordon inherits.
  expect_refused(launch("exec 7<" + home_, {"--workspace", "/proc/self/fd/7"}, home_),
                 "is your home directory (" + home_ + ")");
  // /proc/PID/cwd of a process sitting in the home.
  RunOptions o;
  o.env = env_;
  o.as = who_;
  o.cwd = home_;
  const pid_t sitting = spawn_background({"/bin/sleep", "30"}, o);
  ASSERT_GT(sitting, 0);
  expect_refused(launch("true", {"--workspace", "/proc/" + std::to_string(sitting) + "/cwd"}, home_),
                 "is your home directory (" + home_ + ")");
  stop_background(sitting);
  fs::create_symlink(base_->path(), mnt_ + "/link");
  expect_refused(launch("true", {"--workspace", mnt_ + "/link/home"}, home_),
                 "is your home directory (" + home_ + ")");
}

INSTANTIATE_TEST_SUITE_P(As, PathAlias, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
