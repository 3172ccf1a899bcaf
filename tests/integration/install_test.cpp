// `cmake --install` lays out bin/, libexec/cordon/ and the fixed config path, and never
// overwrites an operator's configuration. Staged with DESTDIR; nothing touches the host.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "support.h"

namespace cordon::testing {
namespace {

mode_t mode_of(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

TEST(Install, LaysOutBinLibexecAndConfig) {
  TempDir stage("/tmp/cordon-install-");
  RunOptions o;
  o.env = {{"PATH", "/usr/bin:/bin"}, {"DESTDIR", stage.path()}};
  std::vector<std::string> install = {"/usr/bin/cmake", "--install", CORDON_BUILD_DIR, "--prefix", "/opt/cordon"};
  RunResult r = run(install, o);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string root = stage.path();
  EXPECT_EQ(mode_of(root + "/opt/cordon/bin/cordon") & 0111, 0111u);
  EXPECT_EQ(mode_of(root + "/opt/cordon/libexec/cordon/empty"), 0444u);
  EXPECT_TRUE(path_exists(root + "/opt/cordon/libexec/cordon/cordon-battery"));
  EXPECT_EQ(mode_of(root + "/etc/cordon/cordon.toml"), 0644u);
  EXPECT_EQ(read_file(root + "/etc/cordon/cordon.toml"),
            read_file(std::string(CORDON_SOURCE_DIR) + "/etc/cordon.toml"));

  // A second install keeps the operator's edits.
  write_file(root + "/etc/cordon/cordon.toml", "[network]\negress_jail = false\n");
  r = run(install, o);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(read_file(root + "/etc/cordon/cordon.toml"), "[network]\negress_jail = false\n");
}

}  // namespace
}  // namespace cordon::testing
