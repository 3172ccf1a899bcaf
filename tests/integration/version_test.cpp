// `cordon --version` as a bug report uses it: run by root and by an ordinary user, with an
// invalid configuration at the fixed path and without a network, it names the build and the
// bwrap and pasta it finds, or where it looked when it finds none.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "common/build_config.h"
#include "launch_fixture.h"
#include "launcher/inputs/paths.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string first_output_line(const std::vector<std::string>& argv) {
  RunOptions o;
  o.env = {{"PATH", "/usr/bin:/bin"}};
  RunResult r = run(argv, o);
  return r.out.substr(0, r.out.find('\n'));
}

// The commit the tree under test is at, "unknown" when it is not a git checkout of its own.
std::string source_commit() {
  const std::string top = first_output_line({"/usr/bin/git", "-c", std::string("safe.directory=") + CORDON_SOURCE_DIR,
                                             "-C", CORDON_SOURCE_DIR, "rev-parse", "--show-toplevel"});
  if (top.empty() || fs::weakly_canonical(top) != fs::weakly_canonical(CORDON_SOURCE_DIR)) return "unknown";
  return first_output_line({"/usr/bin/git", "-c", std::string("safe.directory=") + CORDON_SOURCE_DIR, "-C",
                            CORDON_SOURCE_DIR, "rev-parse", "HEAD"});
}

class Version : public LaunchFixture {
 protected:
  void SetUp() override { stage("/tmp/cordon-version-", "/var/tmp/cordon-prefix-"); }

  // `cordon --version` as the test's identity, in a mount and network namespace of its own
  // where `script` (as root) ran first; the environment holds only PATH.
  RunResult version_after(const std::string& script) {
    std::vector<std::string> argv = {"/usr/bin/unshare",
                                     "-m",
                                     "-n",
                                     "--propagation",
                                     "private",
                                     "/bin/sh",
                                     "-c",
                                     "set -e; " + script + "; exec \"$@\"",
                                     "sh"};
    for (const auto& word : setpriv_as(who_)) argv.push_back(word);
    argv.push_back(cordon_);
    argv.push_back("--version");
    RunOptions o;
    o.env = {{"PATH", "/usr/bin:/bin"}};
    return run(argv, o);
  }

  // Binds /dev/null (not executable) over `name` in every directory cordon searches.
  static std::string hide_everywhere(const std::string& name) {
    std::string script = "true";
    for (const char* dir : kSystemBinaryDirs) {
      const std::string path = std::string(dir) + "/" + name;
      script += "; if [ -e " + path + " ]; then mount --bind /dev/null " + path + "; fi";
    }
    return script;
  }
};

TEST_P(Version, NamesTheBuildAndTheToolsItFinds) {
  if (find_system_binary("bwrap").empty()) GTEST_SKIP() << "no bwrap on this host";
  RunOptions o;
  o.env = {{"PATH", "/usr/bin:/bin"}};
  o.as = who_;
  // No configuration is read: an invalid one at the fixed path changes nothing.
  RunResult r = run_with_fixed_config(build::kConfigPath, "[network\nmode = 3\n", {cordon_, "--version"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0], std::string("cordon ") + build::kVersion);
  const std::string commit = source_commit();
  EXPECT_EQ(lines[1].rfind("commit: " + commit, 0), 0u) << lines[1] << " (the tree is at " << commit << ")";
  const std::string bwrap = find_system_binary("bwrap");
  EXPECT_EQ(lines[2], "bwrap: " + bwrap + " (" + first_output_line({bwrap, "--version"}) + ")");
  const std::string pasta = find_system_binary("pasta");
  if (pasta.empty()) {
    EXPECT_EQ(lines[3].rfind("pasta: none found", 0), 0u) << lines[3];
  } else {
    const std::string own = first_output_line({pasta, "--version"});
    // Debian 12's pasta prints "pasta unknown version": its package's version is printed instead.
    const std::string expected = own.find("unknown version") == std::string::npos ? own : "package passt ";
    EXPECT_EQ(lines[3].rfind("pasta: " + pasta + " (", 0), 0u) << lines[3];
    EXPECT_NE(lines[3].find(expected), std::string::npos) << lines[3];
  }
}

// The control: with bwrap and pasta hidden wherever cordon looks, the lines say so, and where.
TEST_P(Version, SaysWhereItLookedWhenItFindsNoTool) {
  RunResult r = version_after(hide_everywhere("bwrap") + "; " + hide_everywhere("pasta"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  const std::string looked = " (looked in /usr/bin, /usr/local/bin, /bin, /usr/sbin, /sbin)";
  EXPECT_EQ(lines[2], "bwrap: none found" + looked);
  EXPECT_EQ(lines[3], "pasta: none found" + looked);
}

// What a tool prints is data: a bwrap whose version line holds an OSC 52 (set the clipboard)
// reaches the terminal escaped, on its one line.
TEST_P(Version, AToolsVersionLineIsPrintedAsData) {
  const std::string fake = base_->path() + "/bwrap";
  write_file(fake, "#!/bin/sh\nprintf 'bubblewrap \\033]52;c;aGk=\\007 0.8.0\\nsecond line\\n'\n", 0755);
  RunResult r = version_after(hide_everywhere("bwrap") + "; mount --bind " + fake + " /usr/bin/bwrap");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[2], "bwrap: /usr/bin/bwrap (bubblewrap \\x1b]52;c;aGk=\\x07 0.8.0)");
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(As, Version, ::testing::Values(Who::Root, Who::User), who_name);

// cmake/build_commit.cmake, which writes the commit into the build: a tree that is not the top
// of a git checkout (a tarball, or one unpacked inside another repository) is "unknown".
TEST(VersionCommit, UnknownUnlessTheSourceIsTheTopOfACheckout) {
  if (!fs::exists("/usr/bin/git")) GTEST_SKIP() << "no git";
  TempDir dir("/tmp/cordon-commit-");
  const std::string repo = dir.path() + "/repo", header = dir.path() + "/build_commit.h";
  fs::create_directories(repo + "/tarball");
  auto commit_for = [&](const std::string& source) {
    RunOptions o;
    o.env = {{"PATH", "/usr/bin:/bin"}};
    RunResult r = run({CORDON_CMAKE_COMMAND, "-DSOURCE_DIR=" + source, "-DGIT_EXECUTABLE=/usr/bin/git",
                       "-DOUTPUT=" + header, "-P", std::string(CORDON_SOURCE_DIR) + "/cmake/build_commit.cmake"},
                      o);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string text = read_file(header);
    const auto start = text.find("kCommit = \"") + 11;
    return text.substr(start, text.find('"', start) - start);
  };
  EXPECT_EQ(commit_for(repo), "unknown");  // not a checkout at all
  RunOptions o;
  o.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", dir.path()}};
  ASSERT_EQ(run({"/bin/sh", "-c",
                 "cd '" + repo +
                     "' && git init -q && git -c user.name=t -c user.email=t@t.invalid commit -q "
                     "--allow-empty -m one"},
                o)
                .exit_code,
            0);
  const std::string head = first_output_line({"/usr/bin/git", "-C", repo, "rev-parse", "HEAD"});
  ASSERT_EQ(head.size(), 40u);
  EXPECT_EQ(commit_for(repo), head);                    // the top of a checkout: its commit
  EXPECT_EQ(commit_for(repo + "/tarball"), "unknown");  // inside another repository: not its commit
}

}  // namespace
}  // namespace cordon::testing
