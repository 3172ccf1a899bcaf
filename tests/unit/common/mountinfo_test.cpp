// Which names the mount table gives one directory, and which mounts lie below a path.
#include "common/mountinfo.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

// The root file system (8:1); /home/dev bound again at /mnt/h and its src/ at /srv/code; a
// tmpfs at /home/dev/src/app/cache; a read-only bind of /etc at /home/dev/src/app/etc; a
// second file system (8:2) at /data with the same subtree names.
const char* const kMountinfo =
    "1 0 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "2 1 8:1 /home/dev /mnt/h rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "3 1 8:1 /home/dev/src /srv/code rw,relatime - ext4 /dev/sda1 rw\n"
    "4 1 0:40 / /home/dev/src/app/cache rw,nosuid - tmpfs tmpfs rw\n"
    "5 1 8:1 /etc /home/dev/src/app/etc ro,relatime - ext4 /dev/sda1 rw\n"
    "6 1 8:2 / /data rw - ext4 /dev/sda2 rw\n"
    "7 6 8:2 /home/dev /data/space\\040name rw - ext4 /dev/sda2 rw\n";

TEST(Mountinfo, ADirectoryHasTheNamesOfEveryMountOfItsFileSystemThatHoldsIt) {
  const MountTable t(parse_mountinfo(kMountinfo));
  EXPECT_EQ(t.names_of("/mnt/h"), (std::vector<std::string>{"/mnt/h", "/home/dev"}));
  EXPECT_EQ(t.names_of("/home/dev/src/app"),
            (std::vector<std::string>{"/home/dev/src/app", "/mnt/h/src/app", "/srv/code/app"}));
  EXPECT_EQ(t.names_of("/srv/code"), (std::vector<std::string>{"/srv/code", "/home/dev/src", "/mnt/h/src"}));
  EXPECT_EQ(t.names_of("/home/dev/src/app/etc/x"),
            (std::vector<std::string>{"/home/dev/src/app/etc/x", "/etc/x"}));
  // Another file system with the same paths inside is another directory.
  EXPECT_EQ(t.names_of("/data/space name/a"), (std::vector<std::string>{"/data/space name/a", "/data/home/dev/a"}));
  EXPECT_EQ(t.names_of("/opt"), (std::vector<std::string>{"/opt"}));
}

TEST(Mountinfo, MountsBelowAPathAreTheVisibleOnesStrictlyUnderIt) {
  const MountTable t(parse_mountinfo(kMountinfo));
  std::vector<std::string> below;
  for (const Mount* m : t.mounts_below("/home/dev/src/app")) below.push_back(m->mount_point);
  EXPECT_EQ(below, (std::vector<std::string>{"/home/dev/src/app/cache", "/home/dev/src/app/etc"}));
  EXPECT_TRUE(t.mounts_below("/home/dev/src/app/cache").empty());
  EXPECT_EQ(t.all()[1].device, "8:1");
}

}  // namespace
}  // namespace cordon
