// Every launch leaves a manifest + teardown receipt outside the sandbox's reach, with no
// secret values in it. Real launches, as root and as the unprivileged test user.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "launch_fixture.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

class Manifest : public LaunchFixture {
 protected:
  void SetUp() override {
    stage("/tmp/cordon-manifest-");
    if (IsSkipped() || HasFatalFailure()) return;
    write_file(config_, "[network]\negress_jail = false\n");
    make_workspace();
    dir_ = sessions_dir_of(who_);
  }

  std::set<std::string> records() { return session_records(who_, workspace_); }

  RunResult cordon(const std::vector<std::string>& args, std::map<std::string, std::string> extra = {}) {
    RunOptions o;
    o.env = base_env(who_, extra);
    o.as = who_;
    o.cwd = workspace_;
    std::vector<std::string> argv = {cordon_, "--config", config_};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, o);
  }

  std::string dir_;
};

TEST_P(Manifest, RecordsTheLaunchAndItsReceipt) {
  auto before = records();
  RunResult r = cordon({"run", "--workspace", workspace_, "--", "/bin/sh", "-c",
                        "touch " + dir_ + "/forged.json 2>/dev/null && echo FORGED; exit 3"},
                       {{"GH_TOKEN", "ghp_manifest_canary"}});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out.find("FORGED"), std::string::npos) << "the sandbox wrote into the state directory";
  auto after = records();
  ASSERT_EQ(after.size(), before.size() + 1);
  std::string path;
  for (const auto& p : after)
    if (!before.count(p)) path = p;
  std::string json = read_file(path);
  std::vector<Json> lines = record_lines(path);
  ASSERT_EQ(lines.size(), 2u) << json;  // the manifest, then the receipt
  const Json& manifest = lines[0];
  const Json& receipt = lines[1]["receipt"];
  EXPECT_EQ(receipt["exit_code"], 3) << json;
  EXPECT_EQ(receipt["teardown"]["verified"], true) << json;
  EXPECT_EQ(manifest["bwrap_argv"][0], "/usr/bin/bwrap");
  EXPECT_TRUE(manifest["config_sha256"].is_string());
  EXPECT_TRUE(manifest["seccomp_rules_digest"].is_string());
  EXPECT_TRUE(manifest["versions"]["kernel"].is_string());
  EXPECT_EQ(json.find("ghp_manifest_canary"), std::string::npos) << "a secret value reached the record";

  std::string id = fs::path(path).stem().string();
  // One JSON document: the state, the manifest and the receipt as the record holds them.
  RunResult show = cordon({"sessions", "show", id});
  EXPECT_EQ(show.exit_code, 0);
  Json shown = Json::parse(show.out);
  EXPECT_EQ(shown["format"], "cordon-session-record");
  EXPECT_EQ(shown["state"], "ended");
  EXPECT_EQ(shown["manifest"], manifest);
  EXPECT_EQ(shown["receipt"], receipt);
  RunResult list = cordon({"sessions", "list"});
  EXPECT_NE(list.out.find(id), std::string::npos) << list.out;
  // Its columns: when it started, how long it took, and the command.
  EXPECT_NE(list.out.find("STARTED"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(manifest["started"].get<std::string>()), std::string::npos) << list.out;
  EXPECT_EQ(manifest["command"][0], "/bin/sh") << manifest.dump();
  EXPECT_NE(list.out.find(" /bin/sh -c touch "), std::string::npos) << list.out;
  fs::remove(path);
}

TEST_P(Manifest, RefusedLaunchIsRecordedToo) {
  auto before = records();
  RunResult r = cordon(
      {"run", "--workspace", workspace_, "--test-weaken", "bind:/nonexistent-cordon", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 125) << r.err;
  auto after = records();
  ASSERT_EQ(after.size(), before.size() + 1);
  for (const auto& p : after)
    if (!before.count(p)) {
      std::string json = read_file(p);
      std::vector<Json> lines = record_lines(p);
      ASSERT_EQ(lines.size(), 2u) << json;
      EXPECT_EQ(lines[1]["receipt"]["command_ran"], false) << json;
      EXPECT_EQ(lines[1]["receipt"]["launch_error"].get<std::string>().rfind("sandbox setup failed", 0), 0u) << json;
      fs::remove(p);
    }
}

// A workspace whose name is not UTF-8 (an invalid byte, an overlong "/", a CESU-encoded lone
// surrogate): the record stays valid JSON (the name is {"base64": ...}, decoded to the same
// bytes), and the battery inside, reading the same name from the session file, finds it
// bound read-write.
TEST_P(Manifest, NonUtf8WorkspaceIsRecordedAsValidJson) {
  const std::string workspace = base_->path() + "/ws-\xff\xfe-\xc0\xaf-\xed\xa0\x80";
  fs::create_directories(workspace);
  chown_tree(workspace, who_.uid, who_.gid);
  const std::string battery = fs::path(cordon_).parent_path().parent_path().string() + "/libexec/cordon/cordon-battery";
  auto before = session_records(who_, workspace);
  RunResult r = cordon({"run", "--workspace", workspace, "--", battery, "--json", "--only", "17"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Json report = Json::parse(r.out);
  ASSERT_EQ(report["checks"].size(), 1u) << r.out;
  EXPECT_EQ(report["checks"][0]["status"], "PASS") << r.out;
  auto after = session_records(who_, workspace);
  ASSERT_EQ(after.size(), before.size() + 1);
  std::string path;
  for (const auto& p : after)
    if (!before.count(p)) path = p;
  RunResult strict = run(
      {"/usr/bin/python3", "-c", "import json,sys; [json.loads(l) for l in open(sys.argv[1])]", path}, RunOptions{});
  EXPECT_EQ(strict.exit_code, 0) << strict.err << read_file(path);
  std::vector<Json> lines = record_lines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0]["workspace"].is_object()) << "not UTF-8: expected {\"base64\": ...}";
  EXPECT_EQ(bytes_from_json(lines[0]["workspace"]), workspace);
  fs::remove(path);
  // The plan and the intent, for machines, are strict JSON too (nlohmann rejects invalid UTF-8).
  RunResult argv = cordon({"argv", "--json", "--workspace", workspace, "--", "/bin/true"});
  ASSERT_EQ(argv.exit_code, 0) << argv.err;
  EXPECT_EQ(bytes_from_json(Json::parse(argv.out)["workspace"]), workspace);
  RunResult status = cordon({"status", "--json", "--workspace", workspace});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(bytes_from_json(Json::parse(status.out)["workspace"]), workspace);
}

TEST_P(Manifest, TeardownFailureIsLoud) {
  // Without its own pid namespace the sandbox's background process outlives the command.
  RunResult r = cordon({"run", "--workspace", workspace_, "--test-weaken", "no-unshare-pid", "--", "/bin/sh", "-c",
                        "/bin/sleep 3 >/dev/null 2>&1 & exit 0"});
  EXPECT_EQ(r.exit_code, 125) << r.err;
  EXPECT_NE(r.err.find("TEARDOWN FAILED"), std::string::npos) << r.err;
}

// A disk with room for part of the manifest: the state directory on a 4-page tmpfs, private
// to this launch's mount namespace, one page taken; the state file takes another and the
// manifest (over a page, with a long argument) gets one page of the next. The refusal names
// the errno of the write that failed, never an earlier call's ("File exists" from a mkdir).
TEST_P(Manifest, ANearlyFullDiskNamesTheErrnoOfTheFailingWrite) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounts a tmpfs in a private mount namespace";
  TempDir state("/var/tmp/cordon-manifest-state-");
  const std::string marker = workspace_ + "/ran";
  std::vector<std::string> argv = {"/usr/bin/unshare",
                                   "-m",
                                   "/bin/sh",
                                   "-c",
                                   "mount --make-rprivate / && mount -t tmpfs -o size=16k,mode=1777 tmpfs \"$0\" && "
                                   "head -c 4096 /dev/zero > \"$0/fill\" && exec \"$@\"",
                                   state.path()};
  for (const auto& word : setpriv_as(who_)) argv.push_back(word);
  for (const auto& word : {cordon_, std::string("--config"), config_, std::string("run"), std::string("--workspace"),
                           workspace_, std::string("--"), std::string("/usr/bin/touch"), marker})
    argv.push_back(word);
  argv.push_back(std::string(6000, 'x'));
  RunOptions o;
  o.env = base_env(who_, {{"CORDON_TEST_STATE_DIR", state.path()}});
  o.cwd = workspace_;
  RunResult r = run(argv, o);
  EXPECT_EQ(r.exit_code, 125) << r.err;
  EXPECT_NE(r.err.find("writing the session record"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(": No space left on device (4096 of "), std::string::npos) << r.err;
  EXPECT_FALSE(path_exists(marker)) << "the command ran without a record";
}

INSTANTIATE_TEST_SUITE_P(As, Manifest, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
