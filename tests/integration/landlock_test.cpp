// Landlock, the second filesystem layer ([sandbox] landlock = "auto"), for real: everyday work
// in the sandbox is unchanged under it, and weakenings that widen the mounts on purpose (a host
// tree bound read-write, the whole host root read-only) still cannot read or write what the
// view never granted: EACCES, from the ruleset made from the un-weakened plan. Each control
// runs the same weakening with the layer taken away too (no-landlock) and succeeds: the layer,
// not the mounts, stopped it. Root and the test user.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <set>
#include <string>

#include "common/json_codec.h"
#include "launch_fixture.h"
#include "support.h"

namespace cordon::testing {
namespace {

class Landlock : public LaunchFixture {
 protected:
  void SetUp() override {
    stage("/tmp/cordon-ll-", "/var/tmp/cordon-ll-prefix-");
    if (IsSkipped() || HasFatalFailure()) return;
    write_file(config_, "[network]\nmode = \"offline\"\n[sandbox]\nlandlock = \"auto\"\n");
    make_workspace();
    // A host tree outside every view (/srv), the user's own: only the mounts and the ruleset
    // stand between the session and it, not the file modes.
    host_tree_ = std::make_unique<TempDir>("/srv/cordon-ll-");
    write_file(host_tree_->path() + "/canary", "host data\n");
    chown_tree(host_tree_->path(), who_.uid, who_.gid);
  }

  RunResult sandbox(const std::string& script, const std::vector<std::string>& weakenings = {},
                    const std::string& config = "", std::map<std::string, std::string> env = {}) {
    std::vector<std::string> argv = {cordon_, "--config",    config.empty() ? config_ : config,
                                     "run",   "--workspace", workspace_};
    for (const auto& w : weakenings) argv.insert(argv.end(), {"--test-weaken", w});
    argv.insert(argv.end(), {"--", "/bin/sh", "-c", script});
    RunOptions o;
    o.env = env.empty() ? base_env(who_) : std::move(env);
    o.as = who_;
    o.cwd = workspace_;
    return run(argv, o);
  }

  // Reads the canary and writes beside it; prints what each did.
  std::string touch_host_tree() const {
    const std::string& t = host_tree_->path();
    return "cat " + t + "/canary 2>&1; { echo written > " + t + "/new; } 2>&1 && echo WROTE; true";
  }

  std::unique_ptr<TempDir> host_tree_;
};

TEST_P(Landlock, EverydayWorkIsUnchanged) {
  RunResult r = sandbox(
      "set -e; mkdir -p a b; echo x > a/f; mv a/f b/f; ln -s b/f link; cat link > /dev/null; mkfifo pipe; "
      "rm pipe link; echo t > /tmp/t; mv /tmp/t ./t; echo > /dev/null; (echo out > /dev/stdout) | cat; "
      "mkdir /dev/shm/d; rmdir /dev/shm/d; git init -q repo; cd repo; git -c user.name=a -c user.email=a@b "
      "commit -q --allow-empty -m one; cd ..; python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); "
      "s.bind(\"/tmp/sock\"); print(\"socket\")'; ls / > /dev/null; cat /etc/hostname > /dev/null; echo ALL-OK");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("out\nsocket\nALL-OK\n"), std::string::npos) << r.out << r.err;
}

TEST_P(Landlock, AHostTreeBoundReadWriteStaysClosed) {
  const std::string weakening = "rw-bind:" + host_tree_->path();
  RunResult held = sandbox(touch_host_tree(), {weakening});
  EXPECT_EQ(held.exit_code, 0) << held.out << held.err;
  EXPECT_NE(held.out.find("canary: Permission denied"), std::string::npos) << held.out;
  EXPECT_NE(held.out.find("new: Permission denied"), std::string::npos) << held.out;
  EXPECT_EQ(held.out.find("WROTE"), std::string::npos) << held.out;
  EXPECT_FALSE(path_exists(host_tree_->path() + "/new"));

  // Control: the same bind without the layer reads and writes the host tree.
  RunResult control = sandbox(touch_host_tree(), {weakening, "no-landlock"});
  EXPECT_NE(control.out.find("host data\nWROTE\n"), std::string::npos) << control.out << control.err;
  EXPECT_TRUE(path_exists(host_tree_->path() + "/new"));
}

TEST_P(Landlock, TheHostRootKeepsWhatTheViewHidesUnreadable) {
  RunResult held = sandbox("cat " + host_tree_->path() + "/canary 2>&1; true", {"host-view"});
  EXPECT_NE(held.out.find("canary: Permission denied"), std::string::npos) << held.out << held.err;

  RunResult control = sandbox("cat " + host_tree_->path() + "/canary 2>&1; true", {"host-view", "no-landlock"});
  EXPECT_NE(control.out.find("host data\n"), std::string::npos) << control.out << control.err;
}

// A read-only bind of a host tree the view never had (/srv): its content stays unreadable under
// the layer, and reads without it. (/root cannot be bound so in the system view: its root is
// read-only before any bind; and a root launch's /root is its home tmpfs, which the rules grant
// read-write: the home inversion, not Landlock, holds that one. docs/landlock.md.)
TEST_P(Landlock, AHostTreeBoundReadOnlyStaysUnreadable) {
  const std::string read = "cat " + host_tree_->path() + "/canary 2>&1; true";
  RunResult held = sandbox(read, {"bind:" + host_tree_->path()});
  EXPECT_NE(held.out.find("canary: Permission denied"), std::string::npos) << held.out << held.err;
  RunResult control = sandbox(read, {"bind:" + host_tree_->path(), "no-landlock"});
  EXPECT_NE(control.out.find("host data\n"), std::string::npos) << control.out << control.err;
}

// view = "host" ruled: the whole root readable and runnable, as configured, and nothing
// writable beyond what the view makes so: a host tree bound read-write stays unwritable.
TEST_P(Landlock, AConfiguredHostViewStillRefusesWritesOutsideItsWritableSet) {
  const std::string config = base_->path() + "/host-view.toml";
  write_file(config, "[network]\nmode = \"offline\"\n[filesystem]\nview = \"host\"\n");
  const std::string write = "{ echo written > " + host_tree_->path() + "/new; } 2>&1 && echo WROTE; true";
  RunResult held = sandbox(write, {"rw-bind:" + host_tree_->path()}, config);
  EXPECT_NE(held.out.find("new: Permission denied"), std::string::npos) << held.out << held.err;
  EXPECT_FALSE(path_exists(host_tree_->path() + "/new"));
  RunResult control = sandbox(write, {"rw-bind:" + host_tree_->path(), "no-landlock"}, config);
  EXPECT_NE(control.out.find("WROTE"), std::string::npos) << control.out << control.err;
  EXPECT_TRUE(path_exists(host_tree_->path() + "/new"));
}

// "required" on a kernel without a usable Landlock (played by capping the ABI: test builds
// only) refuses to launch, naming the fix; "auto" launches, and says it has one layer.
TEST_P(Landlock, RequiredRefusesWithoutLandlockAndAutoSaysWhatItLacks) {
  const std::string required = base_->path() + "/required.toml";
  write_file(required, "[network]\nmode = \"offline\"\n[sandbox]\nlandlock = \"required\"\n");
  for (const char* abi : {"0", "1"}) {
    auto env = base_env(who_, {{"CORDON_TEST_LANDLOCK_ABI", abi}});
    RunResult refused = sandbox("echo RAN", {}, required, env);
    EXPECT_EQ(refused.exit_code, 125) << refused.out << refused.err;
    EXPECT_EQ(refused.out.find("RAN"), std::string::npos);
    EXPECT_NE(refused.err.find("sandbox.landlock = \"required\""), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("landlock = \"auto\""), std::string::npos) << "names the way out: " << refused.err;
    RunResult on_auto = sandbox("echo RAN", {}, "", env);
    EXPECT_EQ(on_auto.exit_code, 0) << on_auto.err;
    EXPECT_NE(on_auto.out.find("RAN"), std::string::npos);
  }
  // ABI 2 (Debian 12's kernel): applied, what it lacks recorded, and the battery WARNs naming it.
  auto abi2 = base_env(who_, {{"CORDON_TEST_LANDLOCK_ABI", "2"}});
  const std::string prefix = cordon_.substr(0, cordon_.rfind("/bin/"));
  const std::string battery = prefix + "/libexec/cordon/cordon-battery --only 33";
  RunResult older = sandbox("cat " + host_tree_->path() + "/canary 2>&1; " + battery + "; true",
                            {"bind:" + host_tree_->path()}, required, abi2);
  EXPECT_EQ(older.exit_code, 0) << older.err;
  EXPECT_NE(older.out.find("canary: Permission denied"), std::string::npos) << older.out;
  EXPECT_NE(older.out.find("[WARN] 33 second filesystem layer — ABI 2 (kernel "), std::string::npos) << older.out;
  EXPECT_NE(older.out.find("not on this kernel: truncate (ABI 3), device ioctl (ABI 5), abstract unix socket and "
                           "signal scopes (ABI 6)"),
            std::string::npos)
      << older.out;
  RunOptions o;
  o.env = abi2;
  o.as = who_;
  o.cwd = workspace_;
  RunResult status = run({cordon_, "--config", required, "status"}, o);
  EXPECT_NE(status.out.find("  landlock     ABI 2, 14 filesystem rights; scopes: none; NOT ON THIS KERNEL: truncate"),
            std::string::npos)
      << status.out << status.err;
}

// What `cordon argv` shows: the step in front of the command, reading the rules cordon binds
// (at the sentinel: one file).
TEST_P(Landlock, TheStepRunsInFrontOfTheCommand) {
  RunOptions o;
  o.env = base_env(who_);
  o.as = who_;
  o.cwd = workspace_;
  RunResult r = run({cordon_, "--config", config_, "argv", "--workspace", workspace_, "--", "true"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("/libexec/cordon/cordon-landlock /dev/.cordon-landlock -- true"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--ro-bind-data"), std::string::npos) << r.out;
}

// The manifest records the layer as launched: applied, with the kernel's ABI and its rules;
// under the no-landlock weakening, not applied (the record says what ran, not what was meant).
TEST_P(Landlock, TheManifestRecordsTheLayerAsLaunched) {
  for (bool weakened : {false, true}) {
    std::set<std::string> before = session_records(who_, workspace_);
    RunResult r = sandbox("true", weakened ? std::vector<std::string>{"no-landlock"} : std::vector<std::string>{});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::set<std::string> after = session_records(who_, workspace_);
    std::string added;
    for (const auto& path : after)
      if (!before.count(path)) added = path;
    ASSERT_FALSE(added.empty());
    const Json manifest = record_lines(added).at(0);
    ASSERT_TRUE(manifest.contains("landlock")) << manifest.dump();
    const Json& l = manifest["landlock"];
    EXPECT_EQ(l["mode"], "auto");
    EXPECT_EQ(l["applied"], !weakened) << l.dump();
    EXPECT_GE(l["abi"].get<int>(), 2) << l.dump();
    EXPECT_GT(l["rules"].get<int>(), 5) << l.dump();
    // The digest of the rules file bound, which the weakening does not bind.
    EXPECT_EQ(l["rules_sha256"].is_string(), !weakened) << l.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(As, Landlock, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
