// Which paths a workspace or a writable path may be: the rule itself, without a plan.
#include "launcher/section/dangerous_paths.h"

#include <gtest/gtest.h>

#include "common/error.h"

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

// What the host's mounts and stat(2) said (inputs/path_identity.h), for a home /home/dev.
HostFacts facts_with(std::map<std::string, PathNames> names, std::map<std::string, FileId> ids = {}) {
  HostFacts f;
  f.home = "/home/dev";
  f.path_names = std::move(names);
  f.path_ids = std::move(ids);
  return f;
}

TEST(DangerousPaths, TheHomeOrCordonsStateUnderAnotherNameIsRefused) {
  // /mnt/h is a bind mount of the home; /mnt/s of cordon's state directory; /mnt/e of /etc.
  HostFacts f = facts_with({{"/mnt/h", {{"/mnt/h", "/home/dev"}, {}}},
                            {"/mnt/s", {{"/mnt/s", "/home/dev/.local/state/cordon/sessions"}, {}}},
                            {"/mnt/e/x", {{"/mnt/e/x", "/etc/x"}, {}}},
                            {"/mnt/ok", {{"/mnt/ok", "/home/dev/src/app"}, {}}}});
  EXPECT_EQ(why_not_writable_anywhere("/mnt/h", f, kList),
            "is your home directory (/home/dev) under another name (/home/dev, the same directory)");
  EXPECT_EQ(why_not_writable_anywhere("/mnt/s", f, kList),
            "lies in cordon's state directory (/home/dev/.local/state/cordon) under another name "
            "(/home/dev/.local/state/cordon/sessions, the same directory)");
  EXPECT_EQ(why_not_writable_anywhere("/mnt/e/x", f, kList),
            "lies in a system tree (/etc) under another name (/etc/x, the same directory)");
  EXPECT_EQ(why_not_writable_anywhere("/mnt/ok", f, kList), "") << "a project under two names is still a project";
  EXPECT_EQ(why_not_writable_anywhere("/mnt/unknown", f, kList), "") << "no facts: the name alone";
  EXPECT_EQ(why_not_writable_anywhere("/etc", f, kList), "is a system tree (/etc)") << "the name first";
}

TEST(DangerousPaths, AWritableMountBelowIsJudgedAsThePathItself) {
  HostFacts f = facts_with(
      {{"/home/dev/src/app", {{"/home/dev/src/app"}, {{{"/home/dev/src/app/h", "/home/dev"}, false}}}},
       {"/home/dev/src/lib", {{"/home/dev/src/lib"}, {{{"/home/dev/src/lib/sub"}, false}}}},
       {"/home/dev/src/etc", {{"/home/dev/src/etc"}, {{{"/home/dev/src/etc/e", "/etc"}, false}}}},
       {"/home/dev/src/ro", {{"/home/dev/src/ro"}, {{{"/home/dev/src/ro/e", "/etc"}, true}}}},
       {"/home/dev/src/roh", {{"/home/dev/src/roh"}, {{{"/home/dev/src/roh/h", "/home"}, true}}}}});
  EXPECT_EQ(why_not_writable_anywhere("/home/dev/src/app", f, kList),
            "has a writable mount at /home/dev/src/app/h that is your home directory (/home/dev) under another "
            "name (/home/dev, the same directory)");
  EXPECT_EQ(why_not_writable_anywhere("/home/dev/src/lib", f, kList), "");
  EXPECT_EQ(why_not_writable_anywhere("/home/dev/src/etc", f, kList),
            "has a writable mount at /home/dev/src/etc/e that is a system tree (/etc) under another name (/etc, the "
            "same directory)");
  EXPECT_EQ(why_not_writable_anywhere("/home/dev/src/ro", f, kList), "") << "read-only /etc: visible anyway";
  EXPECT_EQ(why_not_writable_anywhere("/home/dev/src/roh", f, kList),
            "has a mount at /home/dev/src/roh/h that contains your home directory (/home/dev) under another name "
            "(/home, the same directory): the sandbox could read your home through it");
}

TEST(DangerousPaths, TheSameInodeIsTheSameDirectoryWhateverTheMountTableSays) {
  // /proc/1234/cwd of a process in another mount namespace: its name says nothing.
  const FileId home{8, 100}, parent{8, 2}, other{8, 555};
  HostFacts f = facts_with({}, {{"/home/dev", home}, {"/home", parent}, {"/", FileId{8, 1}}, {"/weird/a", home},
                                {"/weird/b", parent}, {"/weird/c", other}});
  EXPECT_EQ(why_not_writable_anywhere("/weird/a", f, kList),
            "is your home directory (/home/dev) under another name");
  EXPECT_EQ(why_not_writable_anywhere("/weird/b", f, kList),
            "contains your home directory (/home/dev) under another name");
  EXPECT_EQ(why_not_writable_anywhere("/weird/c", f, kList), "");
  // A submount's identity counts too.
  f.path_names["/home/dev/src/app"] = {{"/home/dev/src/app"}, {{{"/home/dev/src/app/m"}, false}}};
  f.path_ids["/home/dev/src/app/m"] = home;
  EXPECT_EQ(why_not_writable_anywhere("/home/dev/src/app", f, kList),
            "has a writable mount at /home/dev/src/app/m that is your home directory (/home/dev) under another name");
}

TEST(DangerousPaths, ANewlineIsRefused) {
  EXPECT_THROW(refuse_newlines("workspace", "/home/dev/a\nb"), Error);
  EXPECT_NO_THROW(refuse_newlines("workspace", "/home/dev/a b"));
}

}  // namespace
}  // namespace cordon
