// What an agent opens at a control file's path: absent, a file, a link and what it leads to, or
// another node; recorded in the snapshot and read back; and a planted node removed.
#include "launcher/fs/control_file_place.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "scratch_dir.h"

namespace cordon {
namespace {

namespace fs = std::filesystem;

class ControlFilePlaces : public ::testing::Test {
 protected:
  testing::ScratchDir scratch_{"/tmp/cordon-place-"};
  const std::string base_ = scratch_.path();
};

TEST_F(ControlFilePlaces, EachKindIsSeenAndRoundTripsThroughTheSnapshot) {
  const std::string file = base_ + "/f.json", link = base_ + "/l.json", dangling = base_ + "/d.json";
  std::ofstream(file) << "{}";
  ASSERT_EQ(::symlink("f.json", link.c_str()), 0);
  ASSERT_EQ(::symlink("missing.json", dangling.c_str()), 0);
  ASSERT_EQ(::mkfifo((base_ + "/p").c_str(), 0600), 0);
  EXPECT_EQ(control_file_place(base_ + "/none").kind, ControlFilePlace::Kind::Absent);
  EXPECT_EQ(control_file_place(file).resolved, file);
  const ControlFilePlace l = control_file_place(link);
  EXPECT_EQ(l.kind, ControlFilePlace::Kind::Link);
  EXPECT_EQ(l.link, "f.json");
  EXPECT_EQ(l.resolved, fs::canonical(file).string());
  EXPECT_EQ(control_file_place(dangling).resolved, "");
  EXPECT_EQ(describe_place(control_file_place(dangling)), "a symbolic link to missing.json (no file behind it)");
  EXPECT_EQ(describe_place(control_file_place(base_ + "/p")), "a FIFO");
  EXPECT_EQ(describe_place(control_file_place(base_)), "a directory");
  for (const std::string& path : {base_ + "/none", file, link, dangling, base_ + "/p"}) {
    const ControlFilePlace place = control_file_place(path);
    EXPECT_EQ(place_from_json(place_json(place)), place) << path;
  }
  EXPECT_FALSE(place_from_json(Json::parse(R"({"kind":"elsewhere","other":""})")));
  EXPECT_FALSE(place_from_json(Json::parse(R"([1])")));
}

TEST_F(ControlFilePlaces, APlantedNodeIsRemovedAndALaunchLinkMadeAgainOnlyWhereItLed) {
  const std::string file = base_ + "/f.json", path = base_ + "/c.json";
  std::ofstream(file) << "{}";
  ASSERT_EQ(::symlink("f.json", path.c_str()), 0);
  const ControlFilePlace launch = control_file_place(path);
  fs::remove(path);
  ASSERT_EQ(::symlink("/etc/passwd", path.c_str()), 0);
  EXPECT_EQ(remove_planted(path, launch), "");
  EXPECT_EQ(fs::read_symlink(path), "f.json");
  // A launch link with no file behind it is not made again once the session made one there.
  const ControlFilePlace dangling = {ControlFilePlace::Kind::Link, "g.json", "", ""};
  std::ofstream(base_ + "/g.json") << "{}";
  EXPECT_NE(remove_planted(path, dangling).find("leads elsewhere"), std::string::npos);
  EXPECT_FALSE(fs::exists(fs::symlink_status(path)));
  // A directory is named, never removed.
  fs::create_directories(path);
  EXPECT_NE(remove_planted(path, {}).find("is a directory"), std::string::npos);
  EXPECT_TRUE(fs::is_directory(path));
}

}  // namespace
}  // namespace cordon
