// Whether a host path is there inside the sandbox an intent describes (plan/visibility.h).
#include "launcher/plan/visibility.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

SessionIntent intent(const std::string& view) {
  SessionIntent s;
  s.filesystem.view = view;
  s.workspace = "/home/dev/src/app";
  s.home.path = "/home/dev";
  s.home.keep_read_only = {".vimrc"};
  s.agent.home = {".claude"};
  s.libexec = "/usr/local/libexec/cordon";
  s.writable = {"/srv/cache"};
  s.filesystem.read = {"/opt/tool"};
  return s;
}

TEST(Visibility, TheSystemViewShowsUsrEtcAndWhatIsBoundOnPurpose) {
  const SessionIntent s = intent("system");
  for (const char* seen : {"/usr/bin/git", "/etc/hosts", "/home/dev/src/app/run.sh", "/home/dev/.claude/local/claude",
                           "/home/dev/.vimrc", "/srv/cache/bin/x", "/opt/tool/bin/t"})
    EXPECT_TRUE(visible_inside(s, seen)) << seen;
  for (const char* hidden : {"/home/dev/.local/bin/claude", "/home/dev/.pyenv/shims/python3", "/opt/other/bin/x",
                             "/tmp/x", "/var/tmp/x", "/run/x", "/srv/other", "/root/bin/x"})
    EXPECT_FALSE(visible_inside(s, hidden)) << hidden;
}

TEST(Visibility, TheHostViewHidesOnlyTheFreshDirectories) {
  const SessionIntent s = intent("host");
  EXPECT_TRUE(visible_inside(s, "/opt/other/bin/x"));
  EXPECT_TRUE(visible_inside(s, "/var/tmp/x"));
  EXPECT_TRUE(visible_inside(s, "/home/dev/.claude/local/claude"));
  EXPECT_FALSE(visible_inside(s, "/home/dev/.local/bin/claude"));
  EXPECT_FALSE(visible_inside(s, "/tmp/x"));
}

}  // namespace
}  // namespace cordon
