// The devcontainer entrypoint, run against a staged root (no Docker engine runs here): the
// files, modes and shims it produces, and its refusal to start when `cordon doctor` FAILs.
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

  RunResult entrypoint(const std::string& wrapper_prefix) {
    std::string script = wrapper_prefix + " " + std::string(CORDON_SOURCE_DIR) +
                         "/devcontainer/entrypoint.sh /bin/sh -c 'echo SESSION > " + root_->path() + "/started'";
    RunOptions o;
    o.env = {{"PATH", "/usr/bin:/bin:/usr/sbin:/sbin"}, {"HOME", "/root"}, {"CORDON_BUILD_DIR", CORDON_BUILD_DIR},
             {"CORDON_STAGE_ROOT", root_->path()}, {"CORDON_SKILL_HOME", home_}, {"CORDON_AGENTS", "claude codex"}};
    o.timeout_ms = 120000;
    return run({"/bin/sh", "-c", script}, o);
  }

  std::unique_ptr<TempDir> root_;
  std::string home_;
};

TEST_F(Entrypoint, InstallsShimsSkillsAndStartsTheSession) {
  RunResult r = entrypoint("");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string p = root_->path() + "/usr/local";
  EXPECT_EQ(mode_of(p + "/bin/cordon") & 0755, 0755u);
  EXPECT_TRUE(path_exists(p + "/libexec/cordon/cordon-battery"));
  EXPECT_EQ(mode_of(p + "/libexec/cordon/empty"), 0444u);
  EXPECT_EQ(mode_of(root_->path() + "/etc/cordon/cordon.toml"), 0644u);
  // claude was present: shimmed; codex was not: left alone.
  EXPECT_NE(read_file(p + "/bin/claude").find("# cordon shim for claude"), std::string::npos);
  EXPECT_EQ(read_file(p + "/libexec/cordon/agents/claude"), "#!/bin/sh\necho claude \"$@\"\n");
  EXPECT_FALSE(path_exists(p + "/bin/codex"));
  EXPECT_NE(r.err.find("shimmed claude"), std::string::npos) << r.err;
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

TEST_F(Entrypoint, RefusesToStartWhenDoctorFails) {
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
