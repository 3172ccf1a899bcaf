// The relay's look at a job that stopped itself: a process of a group in state T, and which
// groups are the session's own (terminal/stopped_job.h). Real processes, stopped and continued.
#include "launcher/terminal/stopped_job.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace cordon::terminal {
namespace {

// A child in a process group of its own, sleeping until killed.
pid_t group_child() {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    for (;;) ::pause();
  }
  ::setpgid(pid, pid);
  return pid;
}

bool eventually(bool want, pid_t group) {
  for (int i = 0; i < 200; ++i) {
    if (group_has_stopped_process(group) == want) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(StoppedJob, AStoppedProcessOfTheGroupIsSeenAndAContinuedOneIsNot) {
  pid_t child = group_child();
  ASSERT_GT(child, 0);
  EXPECT_FALSE(group_has_stopped_process(child));
  ::kill(child, SIGSTOP);
  EXPECT_TRUE(eventually(true, child));
  ::kill(child, SIGCONT);
  EXPECT_TRUE(eventually(false, child));
  EXPECT_FALSE(group_has_stopped_process(0));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
}

TEST(StoppedJob, TheSessionsGroupsAreTheLeadersAndThoseOfItsChildren) {
  pid_t child = group_child();
  ASSERT_GT(child, 0);
  EXPECT_TRUE(is_session_group(::getpid(), ::getpid()));  // the leader's own group
  EXPECT_TRUE(is_session_group(child, ::getpid()));       // a child's group (the session init's)
  EXPECT_FALSE(is_session_group(child, ::getppid()));     // a grandchild's group (a shell's job)
  EXPECT_FALSE(is_session_group(-1, ::getpid()));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
}

}  // namespace
}  // namespace cordon::terminal
