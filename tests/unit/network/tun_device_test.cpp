// The one "is this the tun device" answer the jail's prerequisites and doctor share.
#include "launcher/network/tun_device.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

namespace cordon::jail {
namespace {

// /dev/null opens read-write like the tun device but is 1:3: it must not pass.
TEST(TunDevice, AnotherCharacterDeviceIsNotTheTunDevice) {
  TunDeviceCheck check = check_tun_device("/dev/null");
  EXPECT_EQ(check.problem, "/dev/null is not the tun device (character device 10:200)");
  EXPECT_NE(check.fix.find("mknod -m 0666 /dev/null c 10 200"), std::string::npos) << check.fix;
}

TEST(TunDevice, AMissingDeviceNamesTheDriver) {
  TunDeviceCheck check = check_tun_device("/nonexistent/tun");
  EXPECT_EQ(check.problem, "cannot open /nonexistent/tun: No such file or directory");
  EXPECT_NE(check.fix.find("modprobe tun"), std::string::npos) << check.fix;
}

// Control: the host's real device, when it has one, passes.
TEST(TunDevice, TheRealDevicePasses) {
  struct stat st {};
  if (::stat(kTunDevicePath, &st) != 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != 10 || minor(st.st_rdev) != 200)
    GTEST_SKIP() << "no tun device on this host";
  TunDeviceCheck check = check_tun_device();
  if (check.problem.find("Permission denied") != std::string::npos) GTEST_SKIP() << check.problem;
  EXPECT_EQ(check.problem, "");
}

}  // namespace
}  // namespace cordon::jail
