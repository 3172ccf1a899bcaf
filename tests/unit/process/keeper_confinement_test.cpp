// The keepers' confinement (process/keeper_process.h): a keeper's action, run after its
// launcher's "death" (here: the test lets go of the KeeperProcess), tries what a confined
// keeper may not do, and writes what the kernel said to the pipe it keeps at 3. Each
// confinement is seen denying, and the control (no confinement) is seen doing the same thing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "common/drop_capabilities.h"
#include "common/landlock_abi.h"
#include "launcher/process/keeper_process.h"
#include "scratch_dir.h"

namespace cordon {
namespace {

std::string errno_name(int err) {
  if (err == 0) return "ok";
  const char* n = ::strerrorname_np(err);
  return n ? n : std::to_string(err);
}

// A listening abstract unix socket of this (unconfined) process.
struct AbstractListener {
  std::string name = "cordon-keeper-test-" + std::to_string(::getpid());
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  AbstractListener() {
    sockaddr_un at{};
    at.sun_family = AF_UNIX;
    std::memcpy(at.sun_path + 1, name.data(), name.size());
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    if (::bind(fd, reinterpret_cast<sockaddr*>(&at), len) != 0 || ::listen(fd, 4) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ~AbstractListener() {
    if (fd >= 0) ::close(fd);
  }
};

// In the keeper (fd 3: the pipe's write end): each attempt as "what=errno-name" lines.
std::string create_in(const std::string& dir) {
  const int made = ::open((dir + "/planted").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  return errno_name(made >= 0 ? 0 : errno);
}

void attempt_all(const std::string& dir, const std::string& abstract, pid_t launcher) {
  std::string out;
  const int opened = ::open((dir + "/host-file").c_str(), O_RDONLY | O_CLOEXEC);
  out += "open=" + errno_name(opened >= 0 ? 0 : errno) + "\n";
  out += "create_granted=" + create_in(dir + "/granted") + "\n";
  out += "create_elsewhere=" + create_in(dir) + "\n";
  char* none[] = {nullptr};
  ::execve("/nonexistent/cordon-keeper-probe", none, none);
  out += "exec=" + errno_name(errno) + "\n";
  out += "signal=" + errno_name(::kill(launcher, 0) == 0 ? 0 : errno) + "\n";
  const int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un at{};
  at.sun_family = AF_UNIX;
  std::memcpy(at.sun_path + 1, abstract.data(), abstract.size());
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + abstract.size());
  out += "abstract=" + errno_name(::connect(s, reinterpret_cast<sockaddr*>(&at), len) == 0 ? 0 : errno) + "\n";
  // The descriptor it was given still works: what the terminal keeper's restore needs.
  out += std::string("caps=") + (holds_capabilities() ? "some" : "none") + "\n";
  out += "kept_fd=" + errno_name(::write(3, "", 0) == 0 ? 0 : errno) + "\n";
  ssize_t ignored = ::write(3, out.data(), out.size());
  (void)ignored;
}

// Starts a keeper with `confinement` (made for the scratch dir the attempts use: its
// "granted" subdirectory is the one a reach may grant), lets it go (its action runs) and
// returns its lines.
std::map<std::string, std::string> run_keeper(
    const std::function<KeeperConfinement(const std::string& granted)>& confinement_for) {
  cordon::testing::ScratchDir dir("/tmp/cordon-keeper-confinement-");
  const std::string file = dir.path() + "/host-file";
  { UniqueFd f(::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644)); }
  EXPECT_EQ(::mkdir((dir.path() + "/granted").c_str(), 0755), 0);
  const KeeperConfinement confinement = confinement_for(dir.path() + "/granted");
  AbstractListener listener;
  EXPECT_GE(listener.fd, 0);
  int ends[2];
  EXPECT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  UniqueFd read_end(ends[0]), write_end(ends[1]);
  const pid_t launcher = ::getpid();
  auto keeper = std::make_unique<KeeperProcess>(
      "cordon-test-kp", "the test keeper", std::vector<int>{write_end.get()},
      [at = dir.path(), name = listener.name, launcher] { attempt_all(at, name, launcher); }, confinement);
  const pid_t pid = keeper->pid();
  write_end.reset();
  keeper.reset();  // the launcher's "death": end-of-file on its pipe, the action runs
  std::string text;
  char buf[512];
  for (ssize_t n; (n = ::read(read_end.get(), buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::waitpid(pid, nullptr, 0);
  std::map<std::string, std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t nl = text.find('\n', at), eq = text.find('=', at);
    if (nl == std::string::npos || eq > nl) break;
    lines[text.substr(at, eq - at)] = text.substr(eq + 1, nl - eq - 1);
    at = nl + 1;
  }
  return lines;
}

bool has_scopes() { return landlock::landlock_abi().abi >= 6; }

TEST(KeeperConfinement, ControlUnconfinedDoesEverything) {
  auto got = run_keeper([](const std::string&) { return KeeperConfinement{}; });
  EXPECT_EQ(got["open"], "ok");
  EXPECT_EQ(got["create_granted"], "ok");
  EXPECT_EQ(got["create_elsewhere"], "ok");
  EXPECT_EQ(got["exec"], "ENOENT");
  EXPECT_EQ(got["signal"], "ok");
  EXPECT_EQ(got["abstract"], "ok");
  EXPECT_EQ(got["kept_fd"], "ok");
  if (::geteuid() == 0) {
    EXPECT_EQ(got["caps"], "some");
  }
}

TEST(KeeperConfinement, TerminalKeeperOpensNothingExecsNothingAndStaysInItsScopes) {
  auto got = run_keeper([](const std::string&) { return terminal_keeper_confinement(); });
  EXPECT_EQ(got["exec"], "EPERM");  // the helpers' filter
  EXPECT_EQ(got["kept_fd"], "ok");
  EXPECT_EQ(got["caps"], "none");
  if (landlock::landlock_abi().abi < 1) GTEST_SKIP() << "no Landlock here: only the filter is seen";
  EXPECT_EQ(got["open"], "EACCES");
  EXPECT_EQ(got["create_granted"], "EACCES");
  EXPECT_EQ(got["create_elsewhere"], "EACCES");
  if (!has_scopes()) GTEST_SKIP() << "Landlock ABI < 6: no scopes to see";
  EXPECT_EQ(got["signal"], "EPERM");
  EXPECT_EQ(got["abstract"], "EPERM");
}

// The session keeper's reach (record/sweep_reach.h) granted only the "granted" dir: it reads
// anything (what it audits), creates only there.
KeeperConfinement session_keeper_reaching(const std::string& granted, bool signal_scope) {
  return session_keeper_confinement({{granted, landlock::kAccessFsMakeReg | landlock::kAccessFsWriteFile}},
                                    signal_scope);
}

TEST(KeeperConfinement, SessionKeeperWritesOnlyItsReachAndExecsNothing) {
  auto got = run_keeper([](const std::string& granted) { return session_keeper_reaching(granted, false); });
  EXPECT_EQ(got["exec"], "EPERM");
  EXPECT_EQ(got["open"], "ok");    // its sweep reads what it audits
  EXPECT_EQ(got["signal"], "ok");  // and kills a v1 cgroup's members by pid
  EXPECT_EQ(got["kept_fd"], "ok");
  if (::geteuid() == 0) {  // removing root's cgroups, tightening any user's files
    EXPECT_EQ(got["caps"], "some");
  }
  if (landlock::landlock_abi().abi < 1) GTEST_SKIP() << "no Landlock here: only the filter is seen";
  EXPECT_EQ(got["create_granted"], "ok");
  EXPECT_EQ(got["create_elsewhere"], "EACCES");
  if (!has_scopes()) GTEST_SKIP() << "Landlock ABI < 6: no scopes to see";
  EXPECT_EQ(got["abstract"], "EPERM");
}

TEST(KeeperConfinement, SessionKeeperWithoutV1CgroupsSignalsNothingOutside) {
  auto got = run_keeper([](const std::string& granted) { return session_keeper_reaching(granted, true); });
  if (!has_scopes()) GTEST_SKIP() << "Landlock ABI < 6: no scopes to see";
  EXPECT_EQ(got["signal"], "EPERM");
  EXPECT_EQ(got["create_granted"], "ok");
}

}  // namespace
}  // namespace cordon
