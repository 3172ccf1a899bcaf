// `cordon shim`: typing the agent's name runs it sandboxed, inside a sandbox it never nests,
// and `shim remove` restores exactly what was there. The fixed config path is provided by an
// overlay in a private mount namespace so the host's /etc/cordon is never touched.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/build_config.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

RunOptions options_for(const Identity& who) {
  RunOptions o;
  o.env = base_env(who);
  return o;
}

class Shim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "shim install needs root";
    prefix_ = std::make_unique<TempDir>("/var/tmp/cordon-shim-");
    cordon_ = stage_install(prefix_->path());
    agent_ = prefix_->path() + "/bin/fakeagent";
    write_file(agent_, "#!/bin/sh\necho \"fakeagent sandbox=${IS_SANDBOX:-no} args=$*\"\n", 0755);
    config_ = prefix_->path() + "/cordon.toml";
    write_file(config_,
               "[network]\negress_jail = false\n[agents.fakeagent]\nhome = [\".fakeagent\"]\n"
               "[agents.otheragent]\n"
               // The staged prefix (its shims and cordon) stands in for /usr/local, which the view holds.
               "[filesystem]\nread = [\"" +
                   prefix_->path() + "/bin\"]\n");
    // Not beside the prefix: the workspace's siblings are hidden inside the sandbox.
    projects_ = std::make_unique<TempDir>("/var/tmp/cordon-shim-projects-");
    workspace_ = projects_->path() + "/ws";
    fs::create_directories(workspace_);
  }

  // Runs `script` as root in the workspace, with the staged bin/ first on PATH, where the
  // fixed config path holds our config: an overlay in a private mount namespace, so nothing
  // is created on the host (a parallel test may be using the same ancestor directory).
  RunResult in_private_etc(const std::string& script) {
    RunOptions o;
    o.env = base_env(root_identity(), {{"PATH", prefix_->path() + "/bin:/usr/bin:/bin"}});
    o.cwd = workspace_;
    return run_with_fixed_config(build::kConfigPath, read_file(config_), {"/bin/sh", "-c", script}, o);
  }

  std::unique_ptr<TempDir> prefix_, projects_;
  std::string cordon_, agent_, config_, workspace_;
};

TEST_F(Shim, InstallRunsTheAgentSandboxedAndRemoveRestoresIt) {
  const std::string original = read_file(agent_);
  RunResult install = run({cordon_, "shim", "install", "--agent", "fakeagent", "--binary", agent_},
                          options_for(root_identity()));
  ASSERT_EQ(install.exit_code, 0) << install.err;
  EXPECT_NE(read_file(agent_).find("# cordon shim for fakeagent"), std::string::npos);
  EXPECT_EQ(read_file(prefix_->path() + "/libexec/cordon/agents/fakeagent"), original);

  RunResult typed = in_private_etc("fakeagent hello");
  EXPECT_EQ(typed.exit_code, 0) << typed.out << typed.err;
  EXPECT_NE(typed.out.find("fakeagent sandbox=1 args=hello"), std::string::npos) << typed.out << typed.err;

  // Inside a sandbox the shim execs the real binary: a nested sandbox would fail to start.
  RunResult nested = in_private_etc("cordon run -- sh -c \"fakeagent inner\"");
  EXPECT_EQ(nested.exit_code, 0) << nested.out << nested.err;
  EXPECT_NE(nested.out.find("fakeagent sandbox=1 args=inner"), std::string::npos) << nested.out << nested.err;

  RunResult status = run({cordon_, "shim", "status"}, options_for(root_identity()));
  EXPECT_NE(status.out.find("fakeagent: shim " + agent_), std::string::npos) << status.out;

  RunResult remove = run({cordon_, "shim", "remove", "--agent", "fakeagent"}, options_for(root_identity()));
  ASSERT_EQ(remove.exit_code, 0) << remove.err;
  EXPECT_EQ(read_file(agent_), original);
  EXPECT_FALSE(path_exists(prefix_->path() + "/libexec/cordon/agents/fakeagent"));
  EXPECT_FALSE(path_exists(prefix_->path() + "/libexec/cordon/agents/fakeagent.shim"));
  EXPECT_NE(run({cordon_, "shim", "status"}, options_for(root_identity())).out.find("no agents are shimmed"),
            std::string::npos);
}

TEST_F(Shim, BinaryElsewhereIsLinkedAndUnlinked) {
  TempDir elsewhere("/var/tmp/cordon-agent-");
  std::string real = elsewhere.path() + "/otheragent";
  write_file(real, "#!/bin/sh\necho other\n", 0755);
  RunOptions o = options_for(root_identity());
  ASSERT_EQ(run({cordon_, "shim", "install", "--agent", "otheragent", "--binary", real}, o).exit_code, 0);
  EXPECT_EQ(fs::read_symlink(prefix_->path() + "/libexec/cordon/agents/otheragent"), real);
  EXPECT_NE(read_file(prefix_->path() + "/bin/otheragent").find("# cordon shim for otheragent"), std::string::npos);
  EXPECT_NE(run({cordon_, "shim", "install", "--agent", "otheragent", "--binary", real}, o).exit_code, 0)
      << "a second install must be refused";
  ASSERT_EQ(run({cordon_, "shim", "remove", "--agent", "otheragent"}, o).exit_code, 0);
  EXPECT_FALSE(path_exists(prefix_->path() + "/bin/otheragent"));
  EXPECT_FALSE(path_exists(prefix_->path() + "/libexec/cordon/agents/otheragent"));
  EXPECT_EQ(read_file(real), "#!/bin/sh\necho other\n");
}

// An agent found only on $PATH is shimmed. Doctor gives the shim a row: PASS while it is the
// first of its name on PATH; WARN when an earlier PATH entry shadows it, or when an update
// (an `npm install -g`) wrote over it, as `cordon run` on a terminal warns too.
TEST_F(Shim, InstallSearchesPathAndShadowedOrReplacedShimsAreReported) {
  const std::string npm_bin = prefix_->path() + "/npm-bin", shim = prefix_->path() + "/bin/otheragent";
  write_file(npm_bin + "/otheragent", "#!/bin/sh\necho other\n", 0755);
  RunOptions o = options_for(root_identity());
  o.env["PATH"] = npm_bin + ":/usr/bin:/bin";
  RunResult install = run({cordon_, "shim", "install", "--agent", "otheragent"}, o);
  ASSERT_EQ(install.exit_code, 0) << install.err;
  EXPECT_EQ(fs::read_symlink(prefix_->path() + "/libexec/cordon/agents/otheragent"), npm_bin + "/otheragent");
  const std::vector<std::string> doctor = {cordon_, "--config", config_, "doctor"};
  RunResult shadowed = run(doctor, o);
  EXPECT_NE(shadowed.out.find("[WARN] shim otheragent"), std::string::npos) << shadowed.out;
  EXPECT_NE(shadowed.out.find(npm_bin + "/otheragent comes before the shim " + shim), std::string::npos)
      << shadowed.out;
  o.env["PATH"] = prefix_->path() + "/bin:" + npm_bin + ":/usr/bin:/bin";
  RunResult first = run(doctor, o);
  EXPECT_NE(first.out.find("[PASS] shim otheragent"), std::string::npos) << first.out;
  write_file(shim, "#!/bin/sh\necho new version, unsandboxed\n", 0755);
  RunResult replaced = run(doctor, o);
  EXPECT_NE(replaced.out.find(shim + " is no longer cordon's shim"), std::string::npos) << replaced.out;
  o.on_pty = true;
  RunResult launch = run({cordon_, "--config", config_, "run", "--workspace", workspace_, "--", "/bin/true"}, o);
  EXPECT_EQ(launch.exit_code, 0) << launch.out;
  EXPECT_NE(launch.out.find("cordon: WARNING: " + shim + " is no longer cordon's shim"), std::string::npos)
      << launch.out;
  o.on_pty = false;
  ASSERT_EQ(run({cordon_, "shim", "remove", "--agent", "otheragent"}, o).exit_code, 0);
}

// Shimming claude names the one command that adds the shipped /verify-sandbox audit for a
// user (its directory is a control entry, read-only inside, so a session cannot add it), and
// that command works as printed.
TEST_F(Shim, ShimmingClaudeNamesTheCommandThatInstallsTheAudit) {
  const std::string claude = projects_->path() + "/claude";
  write_file(claude, "#!/bin/sh\necho fake claude\n", 0755);
  // What `cmake --install` puts next to the helpers (the staged prefix holds the build tree's).
  fs::copy(std::string(CORDON_SOURCE_DIR) + "/libexec/claude", prefix_->path() + "/libexec/cordon/claude",
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  RunResult install = run({cordon_, "shim", "install", "--agent", "claude", "--binary", claude},
                          options_for(root_identity()));
  ASSERT_EQ(install.exit_code, 0) << install.err;
  const std::string source = prefix_->path() + "/libexec/cordon/claude/commands/verify-sandbox.md";
  const std::string line = "install -Dm644 " + source + " ~/.claude/commands/verify-sandbox.md";
  EXPECT_NE(install.out.find(line), std::string::npos) << install.out;
  const std::string home = projects_->path() + "/audit-home";
  fs::create_directories(home);
  RunOptions o = options_for(root_identity());
  o.env["HOME"] = home;
  EXPECT_EQ(
      run({"/bin/sh", "-c", line.substr(0, line.find(" ~/")) + " " + home + "/.claude/commands/verify-sandbox.md"}, o)
          .exit_code,
      0);
  EXPECT_EQ(read_file(home + "/.claude/commands/verify-sandbox.md"), read_file(source));
  EXPECT_EQ(run({cordon_, "shim", "remove", "--agent", "claude"}, options_for(root_identity())).exit_code, 0);
}

// Every sandbox hides the homes: a binary in one could not run as a shimmed agent.
TEST_F(Shim, ABinaryInAHomeIsRefused) {
  TempDir in_home("/root/.cordon-shim-test-");
  const std::string binary = in_home.path() + "/homeagent";
  write_file(binary, "#!/bin/sh\necho home\n", 0755);
  RunResult r = run({cordon_, "shim", "install", "--agent", "otheragent", "--binary", binary},
                    options_for(root_identity()));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("lies in the home directory /root"), std::string::npos) << r.err;
  EXPECT_FALSE(path_exists(prefix_->path() + "/bin/otheragent"));
}

TEST_F(Shim, NeedsRoot) {
  auto user = unprivileged_identity();
  ASSERT_TRUE(user);
  RunOptions o = options_for(*user);
  o.as = *user;
  RunResult r = run({cordon_, "shim", "install", "--agent", "fakeagent", "--binary", agent_}, o);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("needs root"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("run it as root"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("sudo"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(agent_).find("cordon shim"), std::string::npos);
}

}  // namespace
}  // namespace cordon::testing
