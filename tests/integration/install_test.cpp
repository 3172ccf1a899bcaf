// `cmake --install` lays out bin/, libexec/cordon/, share/doc/cordon/ and the fixed config
// path, and never overwrites an operator's configuration. Staged with DESTDIR; nothing touches
// the host.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <regex>
#include <set>

#include "common/error.h"
#include "support.h"

namespace cordon::testing {
namespace {

mode_t mode_of(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

RunResult install(const std::string& stage, std::vector<std::string> extra = {}) {
  RunOptions o;
  o.env = {{"PATH", "/usr/bin:/bin"}, {"DESTDIR", stage}};
  std::vector<std::string> argv = {"/usr/bin/cmake", "--install", CORDON_BUILD_DIR, "--prefix", "/opt/cordon"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run(argv, o);
}

TEST(Install, LaysOutBinLibexecDocsAndConfig) {
  TempDir stage("/tmp/cordon-install-");
  RunResult r = install(stage.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string root = stage.path();
  EXPECT_EQ(mode_of(root + "/opt/cordon/bin/cordon") & 0111, 0111u);
  EXPECT_EQ(mode_of(root + "/opt/cordon/libexec/cordon/empty"), 0444u);
  EXPECT_TRUE(path_exists(root + "/opt/cordon/libexec/cordon/cordon-battery"));
  EXPECT_EQ(mode_of(root + "/etc/cordon/cordon.toml"), 0644u);
  EXPECT_EQ(read_file(root + "/etc/cordon/cordon.toml"),
            read_file(std::string(CORDON_SOURCE_DIR) + "/etc/cordon.toml"));
  // The README (its exit codes among the rest) and docs/, where `cordon --help` points.
  EXPECT_EQ(read_file(root + "/opt/cordon/share/doc/cordon/README.md"),
            read_file(std::string(CORDON_SOURCE_DIR) + "/README.md"));
  EXPECT_EQ(mode_of(root + "/opt/cordon/share/doc/cordon/docs/schemas.md"), 0644u);

  // A second install keeps the operator's edits.
  write_file(root + "/etc/cordon/cordon.toml", "[network]\negress_jail = false\n");
  r = install(stage.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(read_file(root + "/etc/cordon/cordon.toml"), "[network]\negress_jail = false\n");
}

// An installed cordon's --help holds the exit table itself and names the installed README:
// every status it names is one cordon exits with (common/error.h).
TEST(Install, HelpNamesTheExitCodesAndTheInstalledDocs) {
  TempDir stage("/tmp/cordon-install-");
  ASSERT_EQ(install(stage.path()).exit_code, 0);
  const std::string prefix = stage.path() + "/opt/cordon";
  RunOptions o;
  o.env = {{"PATH", "/usr/bin:/bin"}};
  RunResult help = run({prefix + "/bin/cordon", "--help"}, o);
  ASSERT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("\nDocumentation: " + prefix + "/share/doc/cordon/README.md"), std::string::npos)
      << help.out;
  EXPECT_EQ(help.out.find("See README.md"), std::string::npos) << help.out;
  const size_t table = help.out.find("Exit status:\n");
  ASSERT_NE(table, std::string::npos) << help.out;
  std::set<std::string> named;
  std::regex row("\n    ([0-9](?:[-0-9+N, ]*[0-9N])?) ");
  for (std::sregex_iterator it(help.out.begin() + static_cast<long>(table), help.out.end(), row), end; it != end;
       ++it)
    named.insert((*it)[1].str());
  const std::string signal = std::to_string(kExitSignalBase) + "+N";
  const std::set<std::string> statuses = {
      "0-255", signal, std::to_string(kExitSuccess), std::to_string(kExitChecksFailed),
      std::to_string(kExitConfigError), std::to_string(kExitInconclusive), std::to_string(kExitLaunchRefused),
      std::to_string(kExitNotExecutable) + ", " + std::to_string(kExitNotFound)};
  EXPECT_EQ(named, statuses) << help.out;
  for (const char* group : {"  cordon run\n", "  cordon verify [--deep]\n", "  cordon doctor\n"})
    EXPECT_NE(help.out.find(group), std::string::npos) << group << help.out;
  // Each subcommand's --help has its own rows.
  RunResult verify = run({prefix + "/bin/cordon", "verify", "--help"}, o);
  EXPECT_NE(verify.out.find("Exit status:\n  0 "), std::string::npos) << verify.out;
  EXPECT_NE(verify.out.find("\n  " + std::to_string(kExitInconclusive) + " "), std::string::npos) << verify.out;
  RunResult shim = run({prefix + "/bin/cordon", "shim", "install", "--help"}, o);
  EXPECT_NE(shim.out.find("any other failure"), std::string::npos) << shim.out;
}

}  // namespace
}  // namespace cordon::testing
