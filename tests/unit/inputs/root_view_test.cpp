// The system view's host inputs: the entries other users cannot read (masked for a root launch).
#include "launcher/inputs/root_view.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace cordon {
namespace {

TEST(RootView, PrivateEntriesAreTheFilesAndDirectoriesOthersCannotRead) {
  char tmpl[] = "/tmp/cordon-rootview-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  auto file = [&](const std::string& name, mode_t mode) {
    std::ofstream(dir + "/" + name) << "x";
    ::chmod((dir + "/" + name).c_str(), mode);
  };
  std::filesystem::create_directories(dir + "/ssl/private");
  std::filesystem::create_directories(dir + "/app/deep/er");
  ::chmod((dir + "/ssl/private").c_str(), 0700);
  file("shadow", 0640);
  file("hosts", 0644);
  file("app/deep/er/key.conf", 0600);
  file("ssl/private/inside", 0600);                                         // listed through its directory only
  ::symlink((dir + "/shadow").c_str(), (dir + "/link-to-shadow").c_str());  // a link is never followed
  const std::vector<PrivateEntry> found = private_entries(dir);
  std::vector<std::string> paths;
  for (const auto& e : found) paths.push_back(e.path.substr(dir.size()) + (e.directory ? "/" : ""));
  EXPECT_EQ(paths, (std::vector<std::string>{"/app/deep/er/key.conf", "/shadow", "/ssl/private/"}));
  EXPECT_TRUE(private_entries(dir, 2).size() == 2u) << "depth 2 does not reach app/deep/er";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cordon
