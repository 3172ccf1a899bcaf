// Which paths a workspace or a writable path may be: the rule itself, without a plan.
#include "launcher/section/dangerous_paths.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

const std::vector<ProtectedPath> kList = protected_paths("/home/dev", "", "/usr/local/libexec/cordon", "/usr/local/bin",
                                                         "/home/dev/.local/state/cordon");

TEST(DangerousPaths, ProjectDirectoriesAreFine) {
  for (const char* ok : {"/home/dev/src/app", "/srv/projects/app", "/tmp/build-1", "/var/tmp/ws", "/opt/work",
                         "/home/dev/.local/share/x", "/mnt/data"})
    EXPECT_EQ(why_not_writable(ok, "/home/dev", kList), "") << ok;
}

TEST(DangerousPaths, SystemSharedHomeAndCordonPathsAreRefused) {
  EXPECT_EQ(why_not_writable("/", "/home/dev", kList), "is the root directory (/)");
  EXPECT_EQ(why_not_writable("/etc", "/home/dev", kList), "is a system tree (/etc)");
  EXPECT_EQ(why_not_writable("/etc/cordon", "/home/dev", kList), "lies in a system tree (/etc)");
  EXPECT_EQ(why_not_writable("/var", "/home/dev", kList), "contains a system tree (/var/lib)");
  EXPECT_EQ(why_not_writable("/run/user/1000", "/home/dev", kList), "lies in a system tree (/run)");
  EXPECT_EQ(why_not_writable("/tmp", "/home/dev", kList), "is a shared temporary directory (/tmp)");
  EXPECT_EQ(why_not_writable("/home/dev", "/home/dev", kList), "is your home directory (/home/dev)");
  EXPECT_EQ(why_not_writable("/home", "/home/dev", kList), "contains your home directory (/home/dev)");
  EXPECT_EQ(why_not_writable("/home/dev/.local/state/cordon/sessions", "/home/dev", kList),
            "lies in cordon's state directory (/home/dev/.local/state/cordon)");
  EXPECT_EQ(why_not_writable("/home/dev/.local/state", "/home/dev", kList),
            "contains cordon's state directory (/home/dev/.local/state/cordon)");
}

TEST(DangerousPaths, AHomeInsideASystemTreeStillHoldsProjects) {
  auto list = protected_paths("/var/lib/jenkins", "", "/usr/lib/cordon", "/usr/bin",
                              "/var/lib/jenkins/.local/state/cordon");
  EXPECT_EQ(why_not_writable("/var/lib/jenkins/workspace/app", "/var/lib/jenkins", list), "");
  EXPECT_EQ(why_not_writable("/var/lib/jenkins", "/var/lib/jenkins", list), "lies in a system tree (/var/lib)");
  EXPECT_EQ(why_not_writable("/var/lib/docker", "/var/lib/jenkins", list), "lies in a system tree (/var/lib)");
  EXPECT_EQ(why_not_writable("/var/lib/jenkins/.local/state/cordon", "/var/lib/jenkins", list),
            "is cordon's state directory (/var/lib/jenkins/.local/state/cordon)");
}

}  // namespace
}  // namespace cordon
