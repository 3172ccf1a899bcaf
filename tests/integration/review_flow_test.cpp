// Review mode end to end (issue 26): `cordon run --review` leaves the host tree as it was; the
// session's changes wait in its upper layer; `cordon diff` shows them as a patch git applies;
// the scan blocks a secret until it is accepted; `cordon apply` lands exactly the diff, refuses
// conflicts and a moved workspace, and leaves a receipt; `cordon discard` throws it away; a
// SIGKILLed launcher leaves the review to finish. Root and the test user, real bwrap and overlayfs.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/json_codec.h"
#include "launch_fixture.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

// The workspace's tree as text: every entry's relative path, type, mode and content (or target).
std::string tree_of(const std::string& root) {
  std::map<std::string, std::string> entries;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string rel = it->path().string().substr(root.size() + 1);
    if (rel == ".git" || rel.rfind(".git/", 0) == 0) continue;
    struct stat st {};
    ::lstat(it->path().c_str(), &st);
    std::string what = std::to_string(st.st_mode) + " ";
    if (S_ISREG(st.st_mode)) what += read_file(it->path());
    else if (S_ISLNK(st.st_mode)) what += fs::read_symlink(it->path()).string();
    entries[rel] = what;
  }
  std::string out;
  for (const auto& [path, what] : entries) out += path + " = " + what + "\n";
  return out;
}

class ReviewFlow : public LaunchFixture {
 protected:
  void SetUp() override {
    stage("/var/tmp/cordon-rv-", "/var/tmp/cordon-rv-prefix-");
    if (IsSkipped() || HasFatalFailure()) return;
    write_file(config_, "[network]\nmode = \"offline\"\n[workspace]\nmode = \"review\"\n");
    make_workspace();
    RunResult r = host(
        "git init -q -b main . && printf 'one\\ntwo\\n' > a.txt && mkdir dir && echo b > dir/b.txt && "
        "echo '#!/bin/sh' > script.sh && echo gone > del.txt && ln -s a.txt link && git add -A && "
        "git commit -qm base");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }

  RunOptions as_who() { return operator_in(who_, workspace_); }

  RunResult host(const std::string& script) { return run({"/bin/sh", "-c", script}, as_who()); }

  RunResult cordon(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {cordon_, "--config", config_};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, as_who());
  }

  // A review-mode session running `script`; its id.
  std::string session(const std::string& script, int expect_exit = 0) {
    RunResult r = cordon({"run", "--workspace", workspace_, "--", "/bin/sh", "-c", script});
    EXPECT_EQ(r.exit_code, expect_exit) << r.out << r.err;
    std::set<std::string> records = session_records(who_, workspace_);
    EXPECT_FALSE(records.empty());
    if (records.empty()) return "";
    const std::string last = *records.rbegin();
    return fs::path(last).stem().string();
  }

  std::string review_dir(const std::string& id) {
    return fs::path(sessions_dir_of(who_)).parent_path().string() + "/reviews/" + id;
  }

  static constexpr const char* kEdits =
      "printf 'one\\nTWO\\nthree\\n' > a.txt && echo new > new.txt && rm del.txt && chmod +x script.sh && "
      "mkdir -p sub && echo s > sub/s.txt && ln -sfn new.txt link && rm -r dir";
};

TEST_P(ReviewFlow, TheHostTreeIsUnchangedUntilApplyWhichLandsExactlyTheDiff) {
  const std::string before = tree_of(workspace_);
  const std::string id = session(kEdits);
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(tree_of(workspace_), before) << "review mode wrote into the host tree";
  ASSERT_TRUE(fs::is_directory(review_dir(id) + "/upper"));
  struct stat st {};
  ASSERT_EQ(::stat(review_dir(id).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);

  // The manifest records what the session started from: the mode, where its review lives, and
  // for this git workspace the HEAD commit and branch and the index's checksum.
  const Json manifest = record_lines(*session_records(who_, workspace_).rbegin()).front();
  EXPECT_EQ(manifest["workspace_mode"], "review");
  EXPECT_EQ(manifest["review_dir"], review_dir(id));
  const std::string head = host("git rev-parse HEAD").out;
  EXPECT_EQ(manifest["review_base"]["git_head"].get<std::string>() + "\n", head) << manifest.dump();
  EXPECT_EQ(manifest["review_base"]["git_branch"], "refs/heads/main");
  EXPECT_EQ(manifest["review_base"]["git_index"].get<std::string>().size(), 40u);
  EXPECT_FALSE(manifest["review_base"].contains("masked")) << "the scanner's digests stay in the review's directory";

  // The patch: git applies it to a copy of the host tree and gets the session's tree.
  RunResult diff = cordon({"diff", "--session", id});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_NE(diff.out.find("diff --git a/a.txt b/a.txt"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("deleted file mode 100644"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("old mode 100644\nnew mode 100755"), std::string::npos) << diff.out;
  const std::string copy = base_->path() + "/copy";
  fs::create_directory(copy);
  write_file(base_->path() + "/patch", diff.out);
  chown_tree(copy, who_.uid, who_.gid);
  chown_tree(base_->path() + "/patch", who_.uid, who_.gid);
  RunResult git_apply = host("cp -a . " + copy + "/ && cd " + copy +
                             " && git apply --check ../patch && git apply ../patch");
  ASSERT_EQ(git_apply.exit_code, 0) << git_apply.out << git_apply.err << diff.out;

  // --name-status and --json say the same.
  RunResult names = cordon({"diff", "--session", id, "--name-status"});
  EXPECT_EQ(names.out, "M\ta.txt\nD\tdel.txt\nD\tdir/b.txt\nM\tlink\nA\tnew.txt\nM\tscript.sh\nA\tsub/s.txt\n")
      << names.out;
  RunResult json = cordon({"diff", "--session", id, "--json"});
  std::optional<Json> doc = parse_json(json.out, nullptr);
  ASSERT_TRUE(doc) << json.out;
  EXPECT_EQ((*doc)["format"], "cordon-review-diff");
  EXPECT_EQ((*doc)["files"].size(), 7u) << json.out;

  // sessions list names the pending review.
  RunResult list = cordon({"sessions", "list"});
  EXPECT_NE(list.out.find("7 pending"), std::string::npos) << list.out;

  RunResult apply = cordon({"apply", "--session", id});
  ASSERT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  // The host tree is now what git made of the patch.
  EXPECT_EQ(tree_of(workspace_), tree_of(copy));
  EXPECT_EQ(read_file(workspace_ + "/a.txt"), "one\nTWO\nthree\n");
  EXPECT_FALSE(path_exists(workspace_ + "/dir"));
  // The receipt: each file with its hashes.
  std::vector<Json> lines = record_lines(*session_records(who_, workspace_).rbegin());
  ASSERT_FALSE(lines.empty());
  const Json& receipt = lines.back();
  EXPECT_EQ(receipt["format"], "cordon-review-apply") << receipt.dump();
  EXPECT_EQ(receipt["files"].size(), 7u) << receipt.dump();
  // Applied completely: the review is gone, and a second apply changes nothing and says so.
  EXPECT_FALSE(path_exists(review_dir(id)));
  const std::string after = tree_of(workspace_);
  RunResult again = cordon({"apply", "--session", id});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE((again.out + again.err).find("nothing to apply"), std::string::npos) << again.out << again.err;
  EXPECT_EQ(tree_of(workspace_), after);
}

TEST_P(ReviewFlow, APlantedSecretBlocksApplyUntilAccepted) {
  const std::string token = "ghp_" + std::string("a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
  const std::string id = session("echo 'TOKEN = \"" + token + "\"' > settings.py");
  RunResult refused = cordon({"apply", "--session", id});
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("github-token"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.err.find(token), std::string::npos) << "a finding printed the secret";
  EXPECT_FALSE(path_exists(workspace_ + "/settings.py"));
  // The finding's id, as diff lists it.
  RunResult diff = cordon({"diff", "--session", id, "--json"});
  std::optional<Json> doc = parse_json(diff.out, nullptr);
  ASSERT_TRUE(doc && (*doc)["findings"].size() == 1) << diff.out;
  const std::string finding = (*doc)["findings"][0]["id"];
  RunResult wrong = cordon({"apply", "--session", id, "--accept", "000000000000"});
  EXPECT_EQ(wrong.exit_code, 2) << wrong.err;
  RunResult accepted = cordon({"apply", "--session", id, "--accept", finding});
  EXPECT_EQ(accepted.exit_code, 0) << accepted.out << accepted.err;
  EXPECT_EQ(read_file(workspace_ + "/settings.py"), "TOKEN = \"" + token + "\"\n");
  const Json receipt = record_lines(*session_records(who_, workspace_).rbegin()).back();
  EXPECT_EQ(receipt["accepted"][0]["id"], finding) << receipt.dump();
}

TEST_P(ReviewFlow, AHostChangeSinceTheSessionIsAConflictNeverOverwritten) {
  const std::string id = session("echo session > a.txt && echo other > other.txt");
  ASSERT_EQ(host("echo 'host edit' > a.txt").exit_code, 0);
  RunResult refused = cordon({"apply", "--session", id});
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("a.txt: the host changed it since the session began"), std::string::npos) << refused.err;
  EXPECT_EQ(read_file(workspace_ + "/a.txt"), "host edit\n");
  EXPECT_FALSE(path_exists(workspace_ + "/other.txt")) << "a refused apply wrote something";
  // The rest applies by name.
  RunResult rest = cordon({"apply", "--session", id, "other.txt"});
  EXPECT_EQ(rest.exit_code, 0) << rest.err;
  EXPECT_EQ(read_file(workspace_ + "/other.txt"), "other\n");
  EXPECT_EQ(read_file(workspace_ + "/a.txt"), "host edit\n");
}

TEST_P(ReviewFlow, AWorkspaceMovedOrReplacedByASymlinkIsRefused) {
  const std::string id = session("echo x > new.txt");
  const std::string moved = base_->path() + "/moved";
  fs::rename(workspace_, moved);
  fs::create_directory_symlink(moved, workspace_);
  RunResult via_link = cordon({"apply", "--session", id});
  EXPECT_EQ(via_link.exit_code, 125) << via_link.err;
  EXPECT_NE(via_link.err.find("without following a symlink"), std::string::npos) << via_link.err;
  fs::remove(workspace_);
  fs::create_directory(workspace_);
  RunResult other_dir = cordon({"apply", "--session", id});
  EXPECT_EQ(other_dir.exit_code, 125) << other_dir.err;
  EXPECT_NE(other_dir.err.find("not the directory the session ran in"), std::string::npos) << other_dir.err;
  EXPECT_FALSE(path_exists(moved + "/new.txt"));
  EXPECT_FALSE(path_exists(workspace_ + "/new.txt"));
}

TEST_P(ReviewFlow, DiscardThrowsTheChangesAwayAndUnknownIdsAreNamed) {
  const std::string before = tree_of(workspace_);
  const std::string id = session("echo x > new.txt && rm a.txt");
  RunResult unknown = cordon({"diff", "--session", "20200101T000000Z-00000000"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find(id), std::string::npos)
      << "the pending review it could mean is not named: " << unknown.err;
  // From inside the workspace, without --session, the newest review of this workspace.
  RunResult implicit = cordon({"diff", "--name-status"});
  EXPECT_EQ(implicit.out, "D\ta.txt\nA\tnew.txt\n") << implicit.err;
  RunResult discard = cordon({"discard", "--session", id});
  EXPECT_EQ(discard.exit_code, 0) << discard.err;
  EXPECT_FALSE(path_exists(review_dir(id)));
  EXPECT_EQ(tree_of(workspace_), before);
}

// Inside, the review workspace behaves like a normal read-write tree: git (a commit), rm -rf,
// renames, chmod, a hard link, a file lock, inotify. Afterwards the host tree is as it was and
// the diff holds the session's tree.
TEST_P(ReviewFlow, InsideTheWorkspaceBehavesLikeANormalTree) {
  const std::string before = tree_of(workspace_);
  const std::string head_before = host("git rev-parse HEAD").out;
  const std::string script = R"SH(set -e
git add -A && git -c user.name=a -c user.email=a@b.invalid commit -qm inside --allow-empty
mkdir -p d/e && echo x > d/e/f && rm -rf d dir
mv a.txt b.txt && chmod 600 b.txt && ln b.txt hard.txt && test "$(stat -c %h b.txt)" = 2
flock -x b.txt true
python3 - <<'PY'
import ctypes, os, struct
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
assert fd >= 0 and libc.inotify_add_watch(fd, b".", 0x100) >= 0  # IN_CREATE
open("watched.txt", "w").close()
event = os.read(fd, 4096)
assert struct.unpack_from("iIII", event)[1] & 0x100 and b"watched.txt" in event
PY
git log --oneline | wc -l
echo ALL-OK)SH";
  RunResult r = cordon({"run", "--workspace", workspace_, "--", "/bin/sh", "-c", script});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("2\nALL-OK"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(tree_of(workspace_), before);
  EXPECT_EQ(host("git rev-parse HEAD").out, head_before) << "the session's commit reached the host repository";
  RunResult names = cordon({"diff", "--name-status"});
  EXPECT_NE(names.out.find("D\ta.txt\nA\tb.txt\n"), std::string::npos) << names.out;
  EXPECT_NE(names.out.find("A\thard.txt\n"), std::string::npos) << names.out;
  EXPECT_NE(names.out.find("A\twatched.txt\n"), std::string::npos) << names.out;
  EXPECT_NE(names.out.find("D\tdir/b.txt\n"), std::string::npos) << names.out;
  EXPECT_NE(names.out.find("\t.git/"), std::string::npos) << "the commit is in the review: " << names.out;
}

TEST_P(ReviewFlow, ASessionThatChangesNothingLeavesNoReview) {
  const std::string id = session("cat a.txt > /dev/null");
  EXPECT_FALSE(path_exists(review_dir(id)));
}

TEST_P(ReviewFlow, ASigkilledLauncherLeavesItsReviewToFinish) {
  const std::string id_file = base_->path() + "/started";
  RunOptions o = as_who();
  std::vector<std::string> argv = {cordon_,    "--config", config_,   "run", "--workspace",
                                   workspace_, "--",       "/bin/sh", "-c",  "echo kept > kept.txt && sleep 60"};
  pid_t launcher = spawn_background(argv, o);
  ASSERT_GT(launcher, 0);
  // The session's upper layer holds the file once the command wrote it.
  std::string id;
  for (int i = 0; i < 200 && id.empty(); ++i) {
    std::set<std::string> records = session_records(who_, workspace_);
    if (!records.empty() && path_exists(review_dir(fs::path(*records.rbegin()).stem().string()) + "/upper/kept.txt"))
      id = fs::path(*records.rbegin()).stem().string();
    else ::usleep(50000);
  }
  ASSERT_FALSE(id.empty()) << "the session never wrote";
  ::kill(launcher, SIGKILL);
  stop_background(launcher);
  // The keeper closes the session; its review stays.
  for (int i = 0; i < 100 && cordon({"apply", "--session", id, "--dry-run"}).exit_code != 0; ++i) ::usleep(100000);
  EXPECT_FALSE(path_exists(workspace_ + "/kept.txt"));
  RunResult apply = cordon({"apply", "--session", id});
  EXPECT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_EQ(read_file(workspace_ + "/kept.txt"), "kept\n");
}

// An upper layer planted with hostile content after the session (what a process with the
// state directory's owner's rights, or a bug, could leave): a symlink to /etc/passwd under an
// innocent name, a whiteout over .git, names with a newline and an escape sequence, 100,000
// files. diff shows them escaped; apply refuses until each blocking finding is accepted, then
// makes the symlink itself (never writes through it) and leaves .git alone unless its own
// finding is accepted.
TEST_P(ReviewFlow, AHostileUpperLayerIsShownEscapedAndAppliedWithoutHarm) {
  if (GetParam() != Who::Root) GTEST_SKIP() << "planting a whiteout (a 0:0 device) needs root";
  const std::string id = session("echo seed > seed.txt");
  const std::string upper = review_dir(id) + "/upper";
  const std::string passwd_before = read_file("/etc/passwd");
  ASSERT_EQ(::symlink("/etc/passwd", (upper + "/README").c_str()), 0);
  ASSERT_EQ(::mknod((upper + "/.git").c_str(), S_IFCHR | 0600, makedev(0, 0)), 0);
  const std::string evil = "evil\nname\x1b]52;c;aGk=\x07.txt";
  write_file(upper + "/" + evil, "payload\n");
  fs::create_directory(upper + "/many");
  for (int i = 0; i < 100000; ++i) {
    const std::string path = upper + "/many/f" + std::to_string(i);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0) << path;
    ::close(fd);
  }
  RunResult names = cordon({"diff", "--session", id, "--name-status"});
  ASSERT_EQ(names.exit_code, 0) << names.err;
  EXPECT_EQ(names.out.find('\x1b'), std::string::npos) << "a raw escape byte in the output";
  EXPECT_NE(names.out.find("A\t\"evil\\nname\\033]52;c;aGk=\\a.txt\""), std::string::npos) << names.out.substr(0, 400);
  EXPECT_NE(names.out.find("D\t.git/HEAD"), std::string::npos) << names.out.substr(0, 400);
  EXPECT_NE(names.out.find("A\tmany/f99999"), std::string::npos);
  RunResult json = cordon({"diff", "--session", id, "--json"});
  std::optional<Json> doc = parse_json(json.out, nullptr);
  ASSERT_TRUE(doc) << json.err;
  std::map<std::string, std::string> blocking;  // rule -> id
  for (const Json& f : (*doc)["findings"])
    if (f["blocks"] == true) blocking[f["rule"]] = f["id"];
  ASSERT_TRUE(blocking.count("absolute-symlink") && blocking.count("git-internals")) << json.out.substr(0, 2000);
  RunResult refused = cordon({"apply", "--session", id});
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_FALSE(path_exists(workspace_ + "/seed.txt")) << "a refused apply wrote something";
  // The symlink accepted, .git not: apply the rest by name, .git left out.
  RunResult some = cordon(
      {"apply", "--session", id, "--accept", blocking["absolute-symlink"], "README", "seed.txt", evil, "many/f7"});
  EXPECT_EQ(some.exit_code, 0) << some.out << some.err;
  EXPECT_EQ(fs::read_symlink(workspace_ + "/README"), "/etc/passwd");
  EXPECT_EQ(read_file("/etc/passwd"), passwd_before);
  EXPECT_EQ(read_file(workspace_ + "/" + evil), "payload\n");
  EXPECT_TRUE(path_exists(workspace_ + "/.git/HEAD")) << "the whiteout over .git reached the host";
  EXPECT_TRUE(path_exists(workspace_ + "/many/f7"));
  EXPECT_FALSE(path_exists(workspace_ + "/many/f8"));
  // Without naming .git, an apply of everything is still refused.
  RunResult rest = cordon({"apply", "--session", id});
  EXPECT_EQ(rest.exit_code, 1) << rest.err;
  EXPECT_NE(rest.err.find("git-internals"), std::string::npos) << rest.err;
  EXPECT_TRUE(path_exists(workspace_ + "/.git/HEAD"));
}

// A full disk under the state directory: the session's writes fail with ENOSPC inside, and the
// host tree is as it was.
TEST_P(ReviewFlow, AFullDiskFailsWritesInsideAndLeavesTheHostTreeAlone) {
  const std::string small = base_->path() + "/small-state";
  fs::create_directory(small);
  ASSERT_EQ(::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=2m,mode=1777"), 0) << std::strerror(errno);
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{small};
  const std::string before = tree_of(workspace_);
  RunOptions o = as_who();
  o.env["CORDON_TEST_STATE_DIR"] = small;
  RunResult r = run({cordon_, "--config", config_, "run", "--workspace", workspace_, "--", "/bin/sh", "-c",
                     "dd if=/dev/zero of=big bs=1M count=8 2>&1; echo dd=$?"},
                    o);
  EXPECT_NE(r.out.find("No space left on device"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.out.find("dd=0"), std::string::npos) << r.out;
  EXPECT_EQ(tree_of(workspace_), before);
  EXPECT_FALSE(path_exists(workspace_ + "/big"));
}

INSTANTIATE_TEST_SUITE_P(As, ReviewFlow, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
