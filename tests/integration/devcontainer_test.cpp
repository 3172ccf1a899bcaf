// The devcontainer entrypoint, run against a staged root holding cordon where the package puts
// it (/usr; this build tree installed there with cmake --install): the shims and skills it
// produces, and its refusal to start when cordon is missing or `cordon doctor` FAILs. The image
// itself, with the real package, is devcontainer_image_test.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

mode_t mode_of(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

class Entrypoint : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the entrypoint runs as root in a container";
    root_ = std::make_unique<TempDir>("/var/tmp/cordon-devc-");
    home_ = root_->path() + "/home/dev";
    fs::create_directories(home_);
    write_file(root_->path() + "/usr/local/bin/claude", "#!/bin/sh\necho claude \"$@\"\n", 0755);
  }

  void install_cordon() {
    RunOptions o;
    o.env = {{"PATH", "/usr/bin:/bin"}, {"DESTDIR", root_->path()}};
    RunResult r = run({CORDON_CMAKE_COMMAND, "--install", CORDON_BUILD_DIR, "--prefix", "/usr"}, o);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }

  RunResult entrypoint(const std::string& wrapper_prefix) {
    std::string script = wrapper_prefix + " " + std::string(CORDON_SOURCE_DIR) +
                         "/devcontainer/entrypoint.sh /bin/sh -c 'echo SESSION > " + root_->path() + "/started'";
    RunOptions o;
    o.env = {{"PATH", "/usr/bin:/bin:/usr/sbin:/sbin"}, {"HOME", "/root"}, {"CORDON_STAGE_ROOT", root_->path()}, {"CORDON_SKILL_HOME", home_}, {"CORDON_AGENTS", "claude codex"}};
    o.timeout_ms = 120000;
    return run({"/bin/sh", "-c", script}, o);
  }

  std::unique_ptr<TempDir> root_;
  std::string home_;
};

TEST_F(Entrypoint, ShimsSkillsAndStartsTheSession) {
  install_cordon();
  RunResult r = entrypoint("");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string p = root_->path() + "/usr";
  EXPECT_NE(r.err.find("cordon-entrypoint: cordon 0.1.0 (" + p + "/bin/cordon)"), std::string::npos) << r.err;
  // claude was present: shimmed (the shim beside this staged cordon; in the image, where cordon
  // is /usr/bin/cordon, in /usr/local/bin); codex was not: left alone.
  EXPECT_NE(read_file(p + "/bin/claude").find("# cordon shim for claude"), std::string::npos);
  EXPECT_EQ(read_file(p + "/libexec/cordon/agents/claude"), "#!/bin/sh\necho claude \"$@\"\n");
  EXPECT_FALSE(path_exists(p + "/bin/codex"));
  EXPECT_NE(r.err.find("shimmed claude (" + root_->path() + "/usr/local/bin/claude)"), std::string::npos) << r.err;
  EXPECT_EQ(mode_of(home_ + "/.claude/commands/verify-sandbox.md"), 0644u);
  EXPECT_EQ(mode_of(home_ + "/.codex/prompts/verify-sandbox.md"), 0644u);
  EXPECT_EQ(read_file(root_->path() + "/started"), "SESSION\n");

  // Idempotent: a second start keeps the shim and the config.
  fs::remove(root_->path() + "/started");
  RunResult again = entrypoint("");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("claude already shimmed"), std::string::npos) << again.err;
  EXPECT_EQ(read_file(p + "/libexec/cordon/agents/claude"), "#!/bin/sh\necho claude \"$@\"\n");
}

// A non-root container (deploy/kubernetes' pods run as uid 1000) cannot write the shim beside
// cordon: an agent it finds would run unsandboxed when typed, so the entrypoint refuses to
// start, naming the fix. Control: without that agent in CORDON_AGENTS it starts.
TEST_F(Entrypoint, AsAnOrdinaryUserAnAgentItCannotShimStopsTheStart) {
  install_cordon();
  auto user = unprivileged_identity();
  ASSERT_TRUE(user);
  chown_tree(home_, user->uid, user->gid);
  const std::string started = home_ + "/started";
  auto as_user = [&](const std::string& agents) {
    RunOptions o;
    o.env = {{"PATH", "/usr/bin:/bin:/usr/sbin:/sbin"}, {"HOME", home_}, {"CORDON_STAGE_ROOT", root_->path()},
             {"CORDON_SKILL_HOME", home_}, {"CORDON_AGENTS", agents}};
    o.as = *user;
    o.timeout_ms = 120000;
    return run({"/bin/sh", "-c",
                std::string(CORDON_SOURCE_DIR) + "/devcontainer/entrypoint.sh /bin/sh -c 'echo SESSION > " + started +
                    "'"},
               o);
  };
  RunResult refused = as_user("claude");
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find("refusing to start: claude (" + root_->path() +
                             "/usr/local/bin/claude) would run unsandboxed, and it cannot be shimmed as uid " +
                             std::to_string(user->uid)),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("RUN cordon shim install --agent claude"), std::string::npos) << refused.err;
  EXPECT_FALSE(path_exists(started));
  EXPECT_FALSE(path_exists(root_->path() + "/usr/bin/claude"));

  RunResult control = as_user("");
  EXPECT_EQ(control.exit_code, 0) << control.err;
  EXPECT_EQ(read_file(started), "SESSION\n");
}

TEST_F(Entrypoint, RefusesToStartWithoutCordon) {
  RunResult r = entrypoint("");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("refusing to start: no " + root_->path() + "/usr/bin/cordon (install the cordon package"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(path_exists(root_->path() + "/started"));
}

TEST_F(Entrypoint, RefusesToStartWhenDoctorFails) {
  install_cordon();
  // In a private mount namespace bubblewrap is masked: doctor must FAIL and nothing starts.
  RunResult r = entrypoint("unshare -m --propagation private sh -c 'for b in /usr/bin/bwrap /usr/local/bin/bwrap; do "
                           "[ -e $b ] && mount --bind /dev/null $b; done; exec \"$@\"' sh");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("refusing to start"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("[FAIL] bubblewrap"), std::string::npos) << r.out;
  EXPECT_FALSE(path_exists(root_->path() + "/started"));
}

}  // namespace
}  // namespace cordon::testing
