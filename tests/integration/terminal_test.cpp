// The private terminal, tried as an operator meets it: cordon runs on a real pty whose master
// this test holds and reads (the operator's terminal emulator), as root and as a user. The
// sandbox gets a pty of its own; what it prints reaches the "emulator" only through the
// filter; keystrokes, Ctrl-C, Ctrl-Z / fg and window changes work; the operator's terminal
// settings and modes come back after the session, and after cordon is SIGKILLed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "launch_fixture.h"
#include "support.h"

namespace cordon::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The operator's side: a pty pair; cordon runs on the slave, the test reads the master.
class OperatorPty {
 public:
  OperatorPty(const std::vector<std::string>& argv, const RunOptions& o) {
    winsize ws{24, 80, 0, 0};
    if (::openpty(&master_, &slave_, nullptr, nullptr, &ws) != 0) throw std::runtime_error("openpty");
    ::fcntl(master_, F_SETFD, FD_CLOEXEC);
    ::fcntl(slave_, F_SETFD, FD_CLOEXEC);
    ::tcgetattr(slave_, &original_);
    struct stat st {};
    ::fstat(slave_, &st);
    device_ = std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
    pid_ = spawn_on_terminal(argv, o, slave_);
    // The test keeps its slave open: the master never reads EIO, and the settings stay readable.
  }
  ~OperatorPty() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(master_);
    ::close(slave_);
  }

  // Reads until `marker` has been seen (after `from`), at most `timeout_ms`; true if seen.
  bool read_until(const std::string& marker, int timeout_ms = 20000, size_t from = 0) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (out_.find(marker, from) == std::string::npos && Clock::now() < deadline) pump(50);
    return out_.find(marker, from) != std::string::npos;
  }
  void pump(int ms) {
    if (master_ < 0) {
      ::usleep(static_cast<useconds_t>(ms) * 1000);
      return;
    }
    pollfd p{master_, POLLIN, 0};
    if (::poll(&p, 1, ms) <= 0) return;
    char buffer[4096];
    ssize_t n = ::read(master_, buffer, sizeof buffer);
    if (n > 0) out_.append(buffer, static_cast<size_t>(n));
  }
  // The operator's terminal goes away (a window closed, an ssh connection dropped): the
  // master closes, the kernel hangs up the slave and sends its session leader SIGHUP.
  void hang_up() {
    ::close(master_);
    master_ = -1;
  }
  void type(const std::string& keys) { ASSERT_EQ(::write(master_, keys.data(), keys.size()), (ssize_t)keys.size()); }
  void resize(unsigned short rows, unsigned short cols) {
    winsize ws{rows, cols, 0, 0};
    ::ioctl(master_, TIOCSWINSZ, &ws);  // the kernel sends cordon SIGWINCH
  }
  // The operator's terminal settings now (the slave's, as cordon left them).
  termios settings() const {
    termios t{};
    ::tcgetattr(slave_, &t);
    return t;
  }
  bool cooked() const { return (settings().c_lflag & (ICANON | ECHO)) == (original_.c_lflag & (ICANON | ECHO)); }
  // What a shell's line editor sets (no canonical input, no echo; signals and output processing
  // kept), as bash's readline does once it has its terminal back.
  void set_line_editor_mode() {
    termios t = original_;
    t.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    ASSERT_EQ(::tcsetattr(slave_, TCSANOW, &t), 0);
  }

  // Waits (bounded) for cordon to exit; its exit code, or -1 on timeout.
  int wait_exit(int timeout_ms = 30000) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (Clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        for (int i = 0; i < 10; ++i) pump(20);  // the last bytes
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      pump(20);
    }
    return -1;
  }
  // Waits (bounded) for cordon to stop (job control); true once it has.
  bool wait_stopped(int timeout_ms = 10000) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (Clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG | WUNTRACED) == pid_ && WIFSTOPPED(status)) return true;
      pump(20);
    }
    return false;
  }

  pid_t pid() const { return pid_; }
  const std::string& out() const { return out_; }
  const std::string& device() const { return device_; }

 private:
  int master_ = -1, slave_ = -1;
  termios original_{};
  pid_t pid_ = -1;
  bool exited_ = false;
  std::string out_, device_;
};

// Processes named `comm` owned by anyone, for the leftovers checks.
// Processes named `comm` holding a descriptor on the character device `device` ("major:minor"):
// one test's terminal keeper, not another test's running beside it.
int processes_named_on(const std::string& comm, const std::string& device) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (read_file(entry.path().string() + "/comm") != comm + "\n") continue;
    std::error_code ec;
    for (const auto& fd : fs::directory_iterator(entry.path() / "fd", ec)) {
      struct stat st {};
      if (::stat(fd.path().c_str(), &st) == 0 && S_ISCHR(st.st_mode) &&
          std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev)) == device) {
        ++count;
        break;
      }
    }
  }
  return count;
}

class Terminal : public LaunchFixture {
 protected:
  void expect_restored_after_sigkill(bool whole_group);
  void SetUp() override {
    stage("/tmp/cordon-tt-", "/var/tmp/cordon-prefix-");
    if (IsSkipped() || HasFatalFailure()) return;
    write_file(config_, "[network]\negress_jail = false\n");
    make_workspace();
  }

  std::vector<std::string> cordon_run(const std::vector<std::string>& command,
                                      const std::vector<std::string>& run_args = {}) const {
    std::vector<std::string> argv = {cordon_, "--config", config_, "run", "--workspace", workspace_};
    argv.insert(argv.end(), run_args.begin(), run_args.end());
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
  }
  RunOptions as_who() const {
    RunOptions o;
    o.env = base_env(who_, {{"TERM", "xterm-256color"}});
    o.as = who_;
    o.cwd = workspace_;
    return o;
  }
  std::unique_ptr<OperatorPty> start(const std::vector<std::string>& command,
                                     const std::vector<std::string>& run_args = {}) {
    return std::make_unique<OperatorPty>(cordon_run(command, run_args), as_who());
  }
  // The receipt of the newest session in the workspace.
  Json last_receipt() {
    auto records = session_records(who_, workspace_);
    if (records.empty()) return Json();
    auto lines = record_lines(*records.rbegin());
    return lines.size() == 2 ? lines[1]["receipt"] : Json();
  }
};

// What a hostile command prints: text around one sequence of each class the filter drops
// by default (and the status report and keyboard push it passes).
constexpr const char* kHostileOutput =
    "import os, sys\n"
    "w = sys.stdout.buffer.write\n"
    "w(b'A\\x1b]52;c;ZWNobyBwd25lZA==\\x07')\n"                             // clipboard write
    "w(b'B\\x1b]0;evil title\\x07')\n"                                      // window title
    "w(b'C\\x1b[21t\\x1b]11;?\\x07')\n"                                     // title report, background colour query
    "w(b'D\\x1bP$qm\\x1b\\\\\\x1b_Gi=1\\x1b\\\\\\x1b%@\\xc2\\x9b\\x05')\n"  // DCS, APC, ESC % @, C1, ENQ
    "w(b'E\\x1b]8;;http://x/\\x07link\\x1b]8;;\\x07')\n"
    "w(b'F\\x1b]4;1;rgb:ff/00/00\\x07\\x1b]9;notified\\x07')\n"  // palette, notification
    "w(b'G\\x1b[8;5;5t\\x1b[2t\\x1b[>1u')\n"                     // window resize and iconify, kitty keyboard
    "w(b'H\\x1b[6n\\x1b[31mred\\x1b[0m\\x1b[2;5HI\\n')\n"        // status report, colours, cursor
    "st = os.fstat(1)\n"
    "w(b'DEV %d:%d END\\n' % (os.major(st.st_rdev), os.minor(st.st_rdev)))\n"
    "sys.stdout.flush()\n";

TEST_P(Terminal, SandboxHasAPrivatePtyAndHostileSequencesStayInside) {
  auto t = start({"/usr/bin/python3", "-c", kHostileOutput});
  ASSERT_TRUE(t->read_until(" END")) << t->out();
  EXPECT_EQ(t->wait_exit(), 0) << t->out();
  const std::string& out = t->out();
  EXPECT_EQ(out.find("\x1b]52"), std::string::npos) << out;
  EXPECT_EQ(out.find("evil title"), std::string::npos) << out;
  EXPECT_EQ(out.find("\x1b[21t"), std::string::npos) << out;
  EXPECT_EQ(out.find("\x1bP"), std::string::npos) << out;
  EXPECT_EQ(out.find("\x1b]8;"), std::string::npos) << out;
  for (const char* gone :
       {"\x1b]4;", "notified", "\x1b[8;5;5t", "\x1b[2t", "\x1b_", "\x1b%", "\xc2\x9b", "\x05", "\x1b]11"})
    EXPECT_EQ(out.find(gone), std::string::npos) << gone << " reached the terminal: " << out;
  EXPECT_NE(out.find("ABCDElinkFG\x1b[>1uH\x1b[6n\x1b[31mred\x1b[0m\x1b[2;5HI"), std::string::npos) << out;
  // The command's stdout was a pty, and not the operator's.
  auto dev = out.find("DEV ");
  ASSERT_NE(dev, std::string::npos);
  std::string inside = out.substr(dev + 4, out.find(' ', dev + 4) - dev - 4);
  EXPECT_NE(inside, t->device()) << out;
  const int inside_major = std::stoi(inside.substr(0, inside.find(':')));
  EXPECT_TRUE(inside_major >= 136 && inside_major <= 143) << "not a pty: " << inside;
  Json receipt = last_receipt();
  ASSERT_TRUE(receipt.is_object()) << receipt.dump();
  ASSERT_TRUE(receipt["terminal"].is_object()) << receipt.dump();
  const Json& dropped = receipt["terminal"]["dropped"];
  EXPECT_EQ(dropped.value("clipboard", 0), 1) << receipt.dump();
  EXPECT_EQ(dropped.value("title", 0), 1) << receipt.dump();
  EXPECT_EQ(dropped.value("query", 0), 2) << receipt.dump();
  EXPECT_EQ(dropped.value("hyperlink", 0), 2) << receipt.dump();
  EXPECT_EQ(dropped.value("palette", 0), 1) << receipt.dump();
  EXPECT_EQ(dropped.value("notify", 0), 1) << receipt.dump();
  EXPECT_EQ(dropped.value("window", 0), 2) << receipt.dump();
  // Passed by default (docs/terminal.md, "Why these defaults"), and undone at the end.
  EXPECT_EQ(dropped.value("keyboard", 0), 0) << receipt.dump();
  EXPECT_NE(out.find("\x1b[>1u"), std::string::npos) << out;
  EXPECT_NE(out.find("\x1b[<99u\x1b[>4m"), std::string::npos) << "the kitty stack emptied at the end: " << out;
  EXPECT_EQ(dropped.value("unknown", 0), 5) << receipt.dump();
  EXPECT_EQ(dropped.value("status", 0), 0) << receipt.dump();
  // Said once at the end, on the operator's terminal, with the key that lets a class through
  // (the "unknown" class is never passable, so it is not named).
  EXPECT_NE(out.find("cordon: the terminal filter dropped what the sandbox wrote of: clipboard 1, hyperlink 2, "
                     "notify 1, palette 1, query 2, title 1, window 2 (to let a class through, add it "
                     "to [terminal] pass in "),
            std::string::npos)
      << out;
}

// Codex's browser sign-in waits on 127.0.0.1:1455 inside the sandbox's network namespace, out
// of the browser's reach: an operator starting it without a login is told, on the terminal,
// which login works inside. With a login (or an API key passed in) nothing is said.
TEST_P(Terminal, AnAgentWithoutALoginIsToldTheLoginThatWorksInside) {
  const std::string home = base_->path() + "/login-home";
  fs::create_directories(home + "/src/app");
  chown_tree(home, who_.uid, who_.gid);
  RunOptions o = as_who();
  o.env = env_with_other_home(who_, home);
  o.env["TERM"] = "xterm-256color";
  o.cwd = home + "/src/app";
  const std::vector<std::string> argv = {cordon_, "--config",    config_,           "run", "--agent",
                                         "codex", "--workspace", home + "/src/app", "--",  "/bin/true"};
  {
    OperatorPty t(argv, o);
    EXPECT_EQ(t.wait_exit(), 0) << t.out();
    EXPECT_NE(t.out().find("cordon: codex has no login yet: Codex's browser sign-in waits on 127.0.0.1:1455"),
              std::string::npos)
        << t.out();
    EXPECT_NE(t.out().find("codex login --device-auth"), std::string::npos) << t.out();
  }
  write_file(home + "/.codex/auth.json", "{}", 0600);
  chown_tree(home, who_.uid, who_.gid);
  OperatorPty t(argv, o);
  EXPECT_EQ(t.wait_exit(), 0) << t.out();
  EXPECT_EQ(t.out().find("has no login yet"), std::string::npos) << t.out();
}

// A workspace that is a projects directory makes every project in it writable: said on the
// terminal before the launch, naming them and how to give the session one.
TEST_P(Terminal, AProjectsDirectoryAsTheWorkspaceIsSaidBeforeTheLaunch) {
  const std::string projects = base_->path() + "/projects";
  fs::create_directories(projects + "/app/.git");
  fs::create_directories(projects + "/lib/.git");
  chown_tree(projects, who_.uid, who_.gid);
  RunOptions o = as_who();
  o.cwd = projects;
  const std::vector<std::string> argv = {cordon_,       "--config", config_, "run",
                                         "--workspace", projects,   "--",    "/bin/true"};
  {
    OperatorPty t(argv, o);
    EXPECT_EQ(t.wait_exit(), 0) << t.out();
    EXPECT_NE(t.out().find("holds several git repositories (app, lib): the session can write every one of them"),
              std::string::npos)
        << t.out();
  }
  // One project: nothing said.
  o.cwd = projects + "/app";
  OperatorPty t({cordon_, "--config", config_, "run", "--workspace", projects + "/app", "--", "/bin/true"}, o);
  EXPECT_EQ(t.wait_exit(), 0) << t.out();
  EXPECT_EQ(t.out().find("several git repositories"), std::string::npos) << t.out();
}

// `cordon sessions show ID` is indented for a person on a terminal, one line on a pipe.
TEST_P(Terminal, SessionsShowIsIndentedOnATerminal) {
  auto run_once = start({"/bin/true"});
  ASSERT_EQ(run_once->wait_exit(), 0) << run_once->out();
  auto records = session_records(who_, workspace_);
  ASSERT_FALSE(records.empty());
  const std::string path = *records.rbegin();
  const std::string id = path.substr(path.rfind('/') + 1, path.size() - path.rfind('/') - 6);
  OperatorPty t({cordon_, "--config", config_, "sessions", "show", id}, as_who());
  EXPECT_EQ(t.wait_exit(), 0) << t.out();
  EXPECT_NE(t.out().find("\r\n  \"manifest\": {"), std::string::npos) << t.out();
  RunResult piped = run({cordon_, "--config", config_, "sessions", "show", id}, as_who());
  EXPECT_EQ(std::count(piped.out.begin(), piped.out.end(), '\n'), 1) << piped.out;
}

// A class the operator passes on purpose reaches the terminal; the others still do not.
TEST_P(Terminal, APassedClassReachesTheTerminal) {
  write_file(config_, "[network]\negress_jail = false\n[terminal]\npass = [\"hyperlink\", \"status\"]\n");
  auto t = start({"/usr/bin/python3", "-c", kHostileOutput});
  ASSERT_TRUE(t->read_until(" END")) << t->out();
  EXPECT_EQ(t->wait_exit(), 0);
  EXPECT_NE(t->out().find("\x1b]8;;http://x/\x07link\x1b]8;;\x07"), std::string::npos) << t->out();
  EXPECT_EQ(t->out().find("\x1b]52"), std::string::npos) << t->out();
}

// Control: with the private terminal off the same bytes reach the operator's terminal, so the
// assertions above can fail.
TEST_P(Terminal, ControlWithoutThePrivateTerminalTheSequencesReachTheOperator) {
  write_file(config_, "[network]\negress_jail = false\n[terminal]\nprivate = false\n");
  auto t = start({"/usr/bin/python3", "-c", kHostileOutput});
  ASSERT_TRUE(t->read_until(" END")) << t->out();
  EXPECT_EQ(t->wait_exit(), 0);
  EXPECT_NE(t->out().find("\x1b]52;c;"), std::string::npos) << t->out();
  EXPECT_NE(t->out().find("DEV " + t->device() + " END"), std::string::npos) << t->out();
  EXPECT_TRUE(last_receipt()["terminal"].is_null()) << last_receipt().dump();
}

// A TUI leaves the alternate screen, a hidden cursor, mouse reporting and bracketed paste on;
// cordon's terminal is raw while it relays. After the session all of it is undone.
constexpr const char* kModesThenWait =
    "printf '\\033[?1049h\\033[?25l\\033[?1000h\\033[?2004hREADY\\n'; read line; echo \"GOT $line\"";

TEST_P(Terminal, TheOperatorsTerminalIsRestoredAfterTheSession) {
  auto t = start({"/bin/sh", "-c", kModesThenWait});
  ASSERT_TRUE(t->read_until("READY")) << t->out();
  EXPECT_FALSE(t->cooked()) << "the relay reads keystrokes in raw mode";
  const size_t before_reset = t->out().size();
  t->type("hello\r");
  ASSERT_TRUE(t->read_until("GOT hello")) << t->out();
  EXPECT_EQ(t->wait_exit(), 0) << t->out();
  EXPECT_TRUE(t->cooked());
  const std::string tail = t->out().substr(before_reset);
  for (const char* reset : {"\x1b[?1000l", "\x1b[?25h", "\x1b[?2004l", "\x1b[?1049l"})
    EXPECT_NE(tail.find(reset), std::string::npos) << reset << " missing in: " << tail;
}

// SIGKILL leaves cordon no time to restore anything: the terminal keeper does it, also when the
// whole process group is killed (the keeper is in a session of its own).
TEST_P(Terminal, TheTerminalIsRestoredAfterCordonIsSigkilled) { expect_restored_after_sigkill(false); }
TEST_P(Terminal, TheTerminalIsRestoredAfterCordonsWholeProcessGroupIsSigkilled) { expect_restored_after_sigkill(true); }

// A shell whose job died of a signal restores its own settings (bash does), and its line
// editor may hold the terminal before the keeper acts: the keeper then leaves the settings as
// the shell set them (putting the saved ones over them echoed the next line twice), and still
// undoes the modes. The control is the test above: a terminal still raw gets them back.
TEST_P(Terminal, TheKeeperLeavesATerminalTheShellAlreadyTookBack) {
  auto t = start({"/bin/sh", "-c", kModesThenWait});
  ASSERT_TRUE(t->read_until("READY")) << t->out();
  ASSERT_FALSE(t->cooked());
  t->set_line_editor_mode();
  const size_t before_kill = t->out().size();
  ::kill(t->pid(), SIGKILL);
  EXPECT_EQ(t->wait_exit(), 128 + SIGKILL);
  ASSERT_TRUE(t->read_until("\x1b[?1049l", 5000, before_kill)) << t->out().substr(before_kill);
  for (int i = 0; i < 100 && processes_named_on("cordon-tty", t->device()) > 0; ++i) t->pump(20);
  EXPECT_EQ(processes_named_on("cordon-tty", t->device()), 0);
  const termios now = t->settings();
  EXPECT_EQ(now.c_lflag & (ICANON | ECHO), 0U) << "the keeper put its saved settings over the shell's";
  EXPECT_NE(now.c_lflag & ISIG, 0U);
}

void Terminal::expect_restored_after_sigkill(bool whole_group) {
  auto t = start({"/bin/sh", "-c", kModesThenWait});
  ASSERT_TRUE(t->read_until("READY")) << t->out();
  ASSERT_FALSE(t->cooked());
  // The keeper holds the operator's terminal while the session runs (what the wait below counts).
  EXPECT_EQ(processes_named_on("cordon-tty", t->device()), 1);
  const size_t before_kill = t->out().size();
  ::kill(whole_group ? -t->pid() : t->pid(), SIGKILL);
  EXPECT_EQ(t->wait_exit(), 128 + SIGKILL);
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (!t->cooked() && Clock::now() < deadline) t->pump(20);
  EXPECT_TRUE(t->cooked()) << "the keeper did not restore the settings";
  ASSERT_TRUE(t->read_until("\x1b[?1049l", 5000, before_kill)) << t->out().substr(before_kill);
  const std::string tail = t->out().substr(before_kill);
  for (const char* reset : {"\x1b[?1000l", "\x1b[?25h", "\x1b[?2004l"})
    EXPECT_NE(tail.find(reset), std::string::npos) << reset << " missing in: " << tail;
  // The keeper exits once it has restored the terminal (this test's: the other variant's may
  // be running beside it).
  for (int i = 0; i < 100 && processes_named_on("cordon-tty", t->device()) > 0; ++i) t->pump(20);
  EXPECT_EQ(processes_named_on("cordon-tty", t->device()), 0);
}

// After a SIGCONT (`fg`): the relay claims the operator's terminal again, and the session goes
// on where it was (it reads a line and says "GOT" it).
void expect_claimed_and_finished(OperatorPty& t) {
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (t.cooked() && Clock::now() < deadline) t.pump(20);
  EXPECT_FALSE(t.cooked()) << "continued, the relay claims the terminal again";
  t.type("again\r");
  ASSERT_TRUE(t.read_until("GOT again")) << t.out();
  EXPECT_EQ(t.wait_exit(), 0) << t.out();
}

// Ctrl-Z stops the session and cordon, as a job of the operator's shell; SIGCONT (`fg`)
// continues both, and the session goes on where it was.
TEST_P(Terminal, CtrlZSuspendsTheSessionAndFgResumesIt) {
  auto t = start({"/bin/sh", "-c", kModesThenWait});
  ASSERT_TRUE(t->read_until("READY")) << t->out();
  const size_t before = t->out().size();
  t->type("\x1a");
  ASSERT_TRUE(t->wait_stopped()) << t->out();
  EXPECT_TRUE(t->cooked()) << "a suspended cordon gives the terminal back";
  // Written before cordon stopped; the test may have seen the stop before reading them.
  EXPECT_TRUE(t->read_until("\x1b[?1049l", 5000, before)) << "the modes are undone while suspended";
  ::kill(t->pid(), SIGCONT);
  expect_claimed_and_finished(*t);
}

// A TUI that suspends itself, as vim and Claude Code do: in raw mode it reads Ctrl-Z as a
// key, restores the terminal, says so and sends itself SIGTSTP (vim: to its process group;
// Node, as Claude Code: to its own pid); continued, it goes raw again and says so. Without a
// process group of its own the session's group was orphaned and the kernel dropped that
// SIGTSTP: the program said it was suspended, and neither it nor cordon stopped.
constexpr const char* kSelfSuspendingTui =
    "import os, signal, sys, termios, tty\n"
    "fd = 0\n"
    "cooked = termios.tcgetattr(fd)\n"
    "def raw():\n"
    "    tty.setraw(fd)\n"
    "    os.write(1, b'\\x1b[?1049h')\n"
    "raw()\n"
    "os.write(1, b'READY\\r\\n')\n"
    "target = sys.argv[1]\n"
    "line = b''\n"
    "while True:\n"
    "    b = os.read(fd, 1)\n"
    "    if b == b'\\x1a':\n"
    "        os.write(1, b'\\x1b[?1049l')\n"
    "        termios.tcsetattr(fd, termios.TCSADRAIN, cooked)\n"
    "        os.write(1, b'SUSPENDED\\r\\n')\n"
    "        os.kill(0 if target == 'group' else os.getpid(), signal.SIGTSTP)\n"
    "        raw()\n"
    "        os.write(1, b'RESUMED\\r\\n')\n"
    "    elif b == b'\\r':\n"
    "        os.write(1, b'GOT ' + line + b'\\r\\n')\n"
    "        break\n"
    "    else:\n"
    "        line += b\n"
    "termios.tcsetattr(fd, termios.TCSADRAIN, cooked)\n"
    "os.write(1, b'\\x1b[?1049l')\n";

TEST_P(Terminal, ATuiThatSuspendsItselfStopsWithCordonOnTheFirstCtrlZ) {
  write_file(workspace_ + "/tui.py", kSelfSuspendingTui);
  for (const char* target : {"group", "self"}) {
    SCOPED_TRACE(target);
    auto t = start({"/usr/bin/python3", workspace_ + "/tui.py", target});
    ASSERT_TRUE(t->read_until("READY")) << t->out();
    const size_t before = t->out().size();
    t->type("\x1a");
    ASSERT_TRUE(t->read_until("SUSPENDED", 5000, before)) << t->out();
    ASSERT_TRUE(t->wait_stopped()) << "cordon did not stop with its job: " << t->out().substr(before);
    EXPECT_TRUE(t->cooked()) << "a suspended cordon gives the terminal back";
    EXPECT_EQ(t->out().find("RESUMED", before), std::string::npos) << "the program never stopped";
    ::kill(t->pid(), SIGCONT);
    ASSERT_TRUE(t->read_until("RESUMED", 5000, before)) << t->out().substr(before);
    expect_claimed_and_finished(*t);
  }
}

// A job of a shell inside is that shell's to suspend: cordon stays, the shell prints its
// prompt, and `fg` inside brings the job back.
TEST_P(Terminal, CtrlZOnAShellsJobInsideStopsTheJobNotCordon) {
  auto t = start({"/usr/bin/env", "PS1=P> ", "/bin/bash", "--norc", "--noprofile", "-i"});
  ASSERT_TRUE(t->read_until("P> ")) << t->out();
  // The job says when it runs (bash has given it the terminal by then).
  t->type("/bin/sh -c 'echo RUN''NING; exec sleep 30'\r");
  ASSERT_TRUE(t->read_until("RUNNING")) << t->out();
  const size_t before = t->out().size();
  t->type("\x1a");
  ASSERT_TRUE(t->read_until("Stopped", 5000, before)) << t->out().substr(before);
  EXPECT_FALSE(t->wait_stopped(2500)) << "cordon stopped for a job its shell inside suspends";
  // bash refuses the first exit while it still counts a stopped job; the second one leaves.
  t->type("kill -9 %1; exit\r");
  ASSERT_TRUE(t->read_until("exit", 5000, before)) << t->out().substr(before);
  t->pump(500);
  t->type("exit 0\r");
  EXPECT_EQ(t->wait_exit(), 0) << t->out().substr(before);
}

TEST_P(Terminal, CtrlCAndWindowChangesReachTheSandbox) {
  auto t = start({"/bin/sh", "-c",
                  "stty size; trap 'stty size; trap - INT; echo WINCHED' WINCH; echo READY; "
                  "i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; exit 3"});
  ASSERT_TRUE(t->read_until("READY")) << t->out();
  EXPECT_NE(t->out().find("24 80"), std::string::npos) << t->out();
  t->resize(50, 132);
  ASSERT_TRUE(t->read_until("WINCHED")) << t->out();
  EXPECT_NE(t->out().find("50 132"), std::string::npos) << t->out();
  t->type("\x03");
  EXPECT_EQ(t->wait_exit(), 130) << t->out();
}

// Pipes stay pipes: no pty, no relay, nothing recorded.
// A hangup of the operator's terminal ends the session as a shell's would: SIGHUP, and what
// ignores it is killed after a short grace; the record says why. Before, the launcher spun on
// the hung-up terminal (about half a core) and the sandbox ran on for good.
TEST_P(Terminal, AHangupOfTheOperatorsTerminalEndsTheSession) {
  const std::string marker = "600." + std::to_string(::getpid());
  auto term = start({"/bin/sh", "-c", "trap '' HUP; echo READY; exec /bin/sleep " + marker});
  ASSERT_TRUE(term->read_until("READY")) << term->out();
  term->hang_up();
  EXPECT_NE(term->wait_exit(20000), -1) << "cordon kept running after the hangup";
  RunOptions quiet;
  quiet.env = {{"PATH", "/usr/bin:/bin"}};
  EXPECT_NE(run({"/usr/bin/pgrep", "-xf", "/bin/sleep " + marker}, quiet).exit_code, 0)
      << "the sandbox outlived the hangup";
  Json receipt = last_receipt();
  ASSERT_TRUE(receipt.is_object());
  EXPECT_EQ(receipt["ended_by"], "operator terminal hung up") << receipt.dump();
}

TEST_P(Terminal, WithoutATerminalNothingIsRelayed) {
  RunOptions o = as_who();
  RunResult r = run(cordon_run({"/bin/sh", "-c", "[ -t 0 ] || [ -t 1 ] || echo no-terminal"}), o);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no-terminal"), std::string::npos) << r.out;
  EXPECT_TRUE(last_receipt()["terminal"].is_null()) << last_receipt().dump();
}

// Output on pipes (README, docs/terminal.md#pipes): by default every byte passes, binary and
// escape sequences alike; with --filter-output (or [terminal] filter_pipes) stdout and stderr
// go through the output filter, and what it passes (text, colours) arrives intact.
constexpr const char* kPipedOutput =
    "import sys\n"
    "sys.stdout.buffer.write(b'out\\x1b]52;c;cHduZWQ=\\x07-\\x1b]0;evil\\x07-\\x1b[31mred\\x1b[0m-\\x00\\xff-end\\n')\n"
    "sys.stderr.buffer.write(b'err\\x1b]52;c;cHduZWQ=\\x07-\\x1b[1mbold\\x1b[0m-end\\n')\n";

TEST_P(Terminal, ByDefaultPipedOutputPassesByteForByte) {
  RunResult r = run(cordon_run({"/usr/bin/python3", "-c", kPipedOutput}), as_who());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  static constexpr char kRaw[] = "out\x1b]52;c;cHduZWQ=\x07-\x1b]0;evil\x07-\x1b[31mred\x1b[0m-\x00\xff-end\n";
  EXPECT_NE(r.out.find(std::string(kRaw, sizeof kRaw - 1)), std::string::npos) << ::testing::PrintToString(r.out);
  EXPECT_NE(r.err.find("err\x1b]52;c;cHduZWQ=\x07"), std::string::npos) << ::testing::PrintToString(r.err);
}

TEST_P(Terminal, FilterOutputFiltersPipedOutput) {
  RunResult r = run(cordon_run({"/usr/bin/python3", "-c", kPipedOutput}, {"--filter-output"}), as_who());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& text : {r.out, r.err}) {
    EXPECT_EQ(text.find("\x1b]52"), std::string::npos) << ::testing::PrintToString(text);
    EXPECT_EQ(text.find("\x1b]0;"), std::string::npos) << ::testing::PrintToString(text);
    EXPECT_EQ(text.find("evil"), std::string::npos) << ::testing::PrintToString(text);
  }
  EXPECT_NE(r.out.find("out--\x1b[31mred\x1b[0m-"), std::string::npos) << ::testing::PrintToString(r.out);
  EXPECT_NE(r.out.find("-end\n"), std::string::npos) << ::testing::PrintToString(r.out);
  EXPECT_NE(r.err.find("err-\x1b[1mbold\x1b[0m-end\n"), std::string::npos) << ::testing::PrintToString(r.err);
  // The same with the configuration key, for every run; a large output arrives whole.
  write_file(config_, "[network]\negress_jail = false\n[terminal]\nfilter_pipes = true\n");
  RunResult big = run(
      cordon_run({"/usr/bin/python3", "-c",
                  "import sys\nfor i in range(20000): sys.stdout.write('line %d \\x1b]0;t\\x07\\n' % i)\n"}),
      as_who());
  EXPECT_EQ(big.exit_code, 0) << big.err;
  EXPECT_EQ(big.out.find("\x1b]0;"), std::string::npos);
  EXPECT_NE(big.out.find("line 0 \n"), std::string::npos);
  EXPECT_NE(big.out.find("line 19999 \n"), std::string::npos) << big.out.size();
  EXPECT_EQ(std::count(big.out.begin(), big.out.end(), '\n'), 20000);
}

// `cordon run --filter-output -- agent | tee log` from a terminal: stdin and stderr are the
// private pty, stdout the pipe; both reach the operator filtered.
TEST_P(Terminal, FilterOutputWithATerminalFiltersThePipeToo) {
  const std::string pipeline = cordon_ + " --config " + config_ + " run --workspace " + workspace_ +
                               " --filter-output -- /usr/bin/python3 -c \"$1\" | cat; echo DONE";
  auto t = std::make_unique<OperatorPty>(std::vector<std::string>{"/bin/sh", "-c", pipeline, "sh", kPipedOutput},
                                         as_who());
  ASSERT_TRUE(t->read_until("DONE")) << t->out();
  EXPECT_EQ(t->out().find("\x1b]52"), std::string::npos) << ::testing::PrintToString(t->out());
  EXPECT_NE(t->out().find("out--\x1b[31mred"), std::string::npos) << ::testing::PrintToString(t->out());
  // The end line counts the pipe's drops too (stdout's clipboard write and title, beside
  // stderr's on the pty); before, what --filter-output dropped was never named.
  EXPECT_NE(t->out().find("dropped what the sandbox wrote of: clipboard 2"), std::string::npos)
      << ::testing::PrintToString(t->out());
}

INSTANTIATE_TEST_SUITE_P(As, Terminal, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
