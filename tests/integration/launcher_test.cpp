// The launcher against real bwrap: each test launches real sandboxes, as root and as an
// unprivileged user created by the test setup, and asserts from inside.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/json_codec.h"
#include "common/text.h"
#include "launch_fixture.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

class Launcher : public LaunchFixture {
 protected:
  void SetUp() override {
    // The install outside /tmp, which is a tmpfs inside the sandbox, so `cordon status` runs in there.
    stage("/tmp/cordon-it-", "/var/tmp/cordon-prefix-");
    if (IsSkipped() || HasFatalFailure()) return;
    outside_ = std::make_unique<TempDir>("/var/tmp/cordon-it-");
    // The staged cordon lives outside the system view (a real install is in /usr/local/bin):
    // added read-only so `cordon status` runs inside.
    write_file(config_, "[network]\negress_jail = false\n[filesystem]\nread = [\"" + prefix_->path() + "\"]\n");
    make_workspace();
    chown_tree(outside_->path(), who_.uid, who_.gid);
    // A credential canary in the real home, which the sandbox must not see.
    canary_ = who_.home + "/.ssh/cordon-canary-" + std::to_string(::getpid());
    write_file(canary_, "canary-secret\n", 0600);
    chown_tree(who_.home + "/.ssh", who_.uid, who_.gid);
  }

  void TearDown() override {
    if (!canary_.empty()) fs::remove(canary_);
  }

  RunResult sandbox(const std::vector<std::string>& command, RunOptions o = {},
                    const std::vector<std::string>& cordon_args = {}) {
    std::vector<std::string> argv = {cordon_, "--config", config_, "run", "--workspace", workspace_};
    argv.insert(argv.end(), cordon_args.begin(), cordon_args.end());
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    if (o.env.empty()) o.env = base_env(who_);
    o.as = who_;
    o.cwd = workspace_;
    return run(argv, o);
  }

  RunResult sh(const std::string& script, RunOptions o = {}) { return sandbox({"/bin/sh", "-c", script}, o); }

  std::unique_ptr<TempDir> outside_;
  std::string canary_;
};

// Every launch sweeps crashed sessions first. Concurrent launches must never take each
// other's state files for crashed: a state file appears only once it is locked (found by the
// bench's 50 concurrent sessions, where some were swept as "died before its record").
TEST_P(Launcher, ConcurrentLaunchesNeverSweepEachOther) {
  const std::string launch = shell_join(
      {cordon_, "--config", config_, "run", "--workspace", workspace_, "--", "/bin/true"});
  RunOptions o;
  o.env = base_env(who_);
  o.as = who_;
  o.cwd = workspace_;
  o.timeout_ms = 120000;
  RunResult r = run({"/bin/sh", "-c", "i=0; while [ $i -lt 30 ]; do " + launch + " & i=$((i + 1)); done; wait"}, o);
  EXPECT_EQ(r.err.find("its launcher died"), std::string::npos) << r.err;
  std::set<std::string> records = session_records(who_, workspace_);
  EXPECT_EQ(records.size(), 30u);
  for (const auto& path : records) {
    std::vector<Json> lines = record_lines(path);
    ASSERT_EQ(lines.size(), 2u) << path;
    EXPECT_EQ(lines[1]["receipt"]["exit_code"], 0) << path;
  }
}

// The command's own "not found" (127) and "not executable" (126), as a shell reports them, not
// cordon's 125 ("setup failed, run cordon doctor"); nothing runs. A bare name is searched along
// the sandbox's PATH.
TEST_P(Launcher, ACommandThatCannotRunExits127Or126) {
  const std::string script = outside_->path() + "/not-executable.sh";
  write_file(script, "#!/bin/sh\ntouch " + outside_->path() + "/ran\n", 0644);
  struct Case {
    std::vector<std::string> command;
    int status;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{{{"cordon-no-such-command"}, 127, "command not found: cordon-no-such-command"},
                                         {{"/nonexistent/tool"}, 127, "/nonexistent/tool does not exist"},
                                         {{script}, 126, "not executable"},
                                         {{outside_->path()}, 126, "a directory"}}) {
    RunResult r = sandbox(c.command);
    EXPECT_EQ(r.exit_code, c.status) << c.command[0] << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("cordon doctor"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(path_exists(outside_->path() + "/ran"));
  RunResult bare = sandbox({"true"});  // control: a bare name on the sandbox's PATH runs
  EXPECT_EQ(bare.exit_code, 0) << bare.err;
}

// `cordon run bash -c ...` without `--`: the command's options read as cordon's; the refusal
// says how to put the command after `--`, and following it runs the command.
TEST_P(Launcher, ACommandWithOptionsBeforeDashDashGetsTheFix) {
  RunOptions o;
  o.env = base_env(who_);
  o.as = who_;
  o.cwd = workspace_;
  RunResult r = run({cordon_, "--config", config_, "run", "--workspace", workspace_, "bash", "-c", "echo ran"}, o);
  EXPECT_EQ(r.exit_code, 125) << r.err;
  EXPECT_NE(r.err.find("put the command after --"), std::string::npos) << r.err;
  RunResult fixed = sandbox({"bash", "-c", "echo ran"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.err;
  EXPECT_NE(fixed.out.find("ran"), std::string::npos) << fixed.out;
}

TEST_P(Launcher, EnvironmentHoldsOnlyAllowListedNames) {
  RunOptions o;
  o.env = base_env(who_, {{"GH_TOKEN", "ghp_planted"},
                          {"OPENAI_API_KEY", "sk-planted"},
                          {"AWS_SECRET_ACCESS_KEY", "aws-planted"},
                          {"SSH_AUTH_SOCK", "/tmp/agent.sock"},
                          {"DISPLAY", ":0"},
                          {"LC_TIME", "C"}});
  RunResult r = sandbox({"/usr/bin/env"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::set<std::string> allowed = {"PATH",
                                         "HOME",
                                         "TERM",
                                         "LANG",
                                         "LC_TIME",
                                         "USER",
                                         "LOGNAME",
                                         "IS_SANDBOX",
                                         "GIT_CONFIG_GLOBAL",
                                         "GIT_CONFIG_SYSTEM",
                                         "PWD" /* set by bwrap's --chdir */};
  std::istringstream lines(r.out);
  std::string line;
  std::set<std::string> seen;
  while (std::getline(lines, line)) {
    std::string name = line.substr(0, line.find('='));
    EXPECT_TRUE(allowed.count(name)) << "unexpected variable inside: " << line;
    seen.insert(name);
  }
  EXPECT_TRUE(seen.count("IS_SANDBOX"));
  EXPECT_EQ(r.out.find("planted"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("IS_SANDBOX=1"), std::string::npos);
}

TEST_P(Launcher, PrivilegeFloor) {
  RunResult r = sh("grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("CapEff:\t0000000000000000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NoNewPrivs:\t1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Seccomp:\t2"), std::string::npos) << r.out;
}

TEST_P(Launcher, HomeCredentialsAreInvisible) {
  // Control: the canary is there on the host.
  ASSERT_TRUE(path_exists(canary_));
  RunResult r = sh("test -e '" + canary_ + "' && echo VISIBLE; ls -A \"$HOME\"; wc -c < \"$HOME/.netrc\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("VISIBLE"), std::string::npos);
  EXPECT_EQ(r.out.find(".ssh"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n0\n"), std::string::npos) << ".netrc is empty: " << r.out;
}

TEST_P(Launcher, WritesOutsideTheWorkspaceFail) {
  std::string outside = outside_->path() + "/escaped";
  RunResult r = sh("for p in '" + outside +
                   "' /etc/cordon-it /usr/cordon-it /opt/cordon-it; do "
                   "  (echo x > \"$p\") 2>/dev/null && echo \"WROTE $p\"; done; echo ok > inside");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("WROTE"), std::string::npos) << r.out;
  EXPECT_FALSE(path_exists(outside));
  EXPECT_FALSE(path_exists("/etc/cordon-it"));
  EXPECT_EQ(read_file(workspace_ + "/inside"), "ok\n");  // the workspace itself is writable
}

TEST_P(Launcher, TerminalInjectionIsRefusedWithEperm) {
  const std::string probe =
      "import fcntl, termios\n"
      "try:\n"
      "    fcntl.ioctl(0, termios.TIOCSTI, b'x')\n"
      "    print('INJECTED')\n"
      "except OSError as e:\n"
      "    print('errno=%d' % e.errno)\n";
  RunOptions o;
  o.on_pty = true;
  RunResult r = sandbox({"/usr/bin/python3", "-c", probe}, o);
  EXPECT_NE(r.out.find("errno=1"), std::string::npos) << r.out;
  // Control: outside the sandbox the same probe is not refused with EPERM.
  if (read_file("/proc/sys/dev/tty/legacy_tiocsti").rfind("1", 0) == 0) {
    RunOptions c;
    c.on_pty = true;
    c.as = who_;
    c.env = base_env(who_);
    RunResult control = run({"/usr/bin/python3", "-c", probe}, c);
    EXPECT_NE(control.out.find("INJECTED"), std::string::npos) << control.out;
  }
}

TEST_P(Launcher, TerminalStaysUsable) {
  RunOptions o;
  o.on_pty = true;
  o.pty_rows = 33;
  o.pty_cols = 101;
  RunResult r = sandbox({"/bin/stty", "size"}, o);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("33 101"), std::string::npos) << r.out;
}

TEST_P(Launcher, CtrlCOnTheTerminalStopsTheCommand) {
  RunOptions o;
  o.on_pty = true;
  o.pty_after_ms = 1500;
  o.pty_input = "\x03";  // the terminal's interrupt character
  o.timeout_ms = 20000;
  RunResult r = sandbox({"/bin/sleep", "30"}, o);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 130) << r.out;
}

TEST_P(Launcher, WindowResizeReachesTheCommand) {
  RunOptions o;
  o.on_pty = true;
  o.pty_rows = 24;
  o.pty_cols = 80;
  o.pty_after_ms = 800;
  o.resize_rows = 50;
  o.resize_cols = 132;
  o.timeout_ms = 20000;
  // The shell reports the size before and after SIGWINCH arrives.
  RunResult r = sandbox({"/bin/sh", "-c",
                         "stty size; trap 'stty size; exit 0' WINCH; "
                         "i=0; while [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; exit 3"},
                        o);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("24 80"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("50 132"), std::string::npos) << r.out;
}

// `cordon run -- claude` on a fresh home: the claude profile by the command's name (its
// environment name passes), its missing entries made on the host in the shape the agent
// expects and the user's, and what the first session wrote there is what the second finds.
TEST_P(Launcher, TheCommandsNameChoosesTheProfileAndTheSecondSessionRemembersTheFirst) {
  HomeStateLock lock("claude-home");  // another test process may use the same user's Claude state
  const std::string dir = who_.home + "/.claude", file = who_.home + "/.claude.json";
  if (path_exists(dir) || path_exists(file)) GTEST_SKIP() << who_.home << " has a Claude Code state; not touching it";
  struct Cleanup {
    std::string dir, file;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
      fs::remove(file, ec);
    }
  } cleanup{dir, file};
  const std::string agent = outside_->path() + "/bin/claude";
  write_file(agent,
             "#!/bin/sh\necho key=$ANTHROPIC_API_KEY base=$ANTHROPIC_BASE_URL\ncat ~/.claude.json\n"
             "cat ~/.claude/note 2>/dev/null\necho remembered > ~/.claude/note\n",
             0755);
  // The fake agent lives outside the system view: the configuration adds its directory.
  write_file(config_, "[network]\negress_jail = false\n[filesystem]\nread = [\"" + outside_->path() + "/bin\", \"" +
                          prefix_->path() + "\"]\n");
  RunOptions o;
  o.env = base_env(who_, {{"ANTHROPIC_API_KEY", "sk-test"}, {"ANTHROPIC_BASE_URL", "http://127.0.0.1:9"}});
  RunResult first = sandbox({agent}, o);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("key=sk-test base=http://127.0.0.1:9"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("{}"), std::string::npos) << first.out;
  EXPECT_EQ(first.out.find("remembered"), std::string::npos) << first.out;
  struct stat st {};
  ASSERT_EQ(::lstat(dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(st.st_uid, who_.uid);
  ASSERT_EQ(::lstat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, who_.uid);
  RunResult second = sandbox({agent}, o);
  EXPECT_NE(second.out.find("remembered"), std::string::npos) << second.out;
  // Control: under another name the same script is the generic profile: no key, no state.
  const std::string other = outside_->path() + "/bin/not-claude";
  fs::copy_file(agent, other);
  RunResult generic = sandbox({other}, o);
  EXPECT_NE(generic.out.find("key= base="), std::string::npos) << generic.out;
  EXPECT_EQ(generic.out.find("remembered"), std::string::npos) << generic.out;
}

// On a terminal, proxy and agent settings the sandbox does not get are named, never their values.
TEST_P(Launcher, DroppedProxyAndAgentSettingsAreNamedOnATerminal) {
  RunOptions o;
  o.on_pty = true;
  o.env = base_env(who_,
                   {{"HTTPS_PROXY", "http://user:hunter2@proxy.invalid:3128"}, {"NODE_EXTRA_CA_CERTS", "/x.pem"}});
  RunResult r = sandbox({"/bin/true"}, o);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("not passed into the sandbox: HTTPS_PROXY, NODE_EXTRA_CA_CERTS"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("hunter2"), std::string::npos) << r.out;
  // Not on a pipe: scripts' stderr stays theirs.
  o.on_pty = false;
  RunResult piped = sandbox({"/bin/true"}, o);
  EXPECT_EQ(piped.err.find("not passed"), std::string::npos) << piped.err;
}

// $HOME elsewhere (`sudo -E`, CI): the account's own home, and the canary in it, stay hidden.
TEST_P(Launcher, AnotherHomeLeavesTheAccountsHomeHidden) {
  RunOptions o;
  o.env = env_with_other_home(who_, outside_->path() + "/ci-home");
  RunResult r = sh("cat " + canary_ + " 2>&1; echo entries: $(ls -A " + who_.home + ")", o);
  EXPECT_EQ(r.out.find("canary-secret"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No such file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("entries:\n"), std::string::npos) << r.out;
}

TEST_P(Launcher, NestedUserNamespacesAreRefused) {
  RunResult r = sandbox({"/usr/bin/unshare", "--user", "/bin/true"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Operation not permitted"), std::string::npos) << r.err;
  // Control: the same user can create one outside the sandbox.
  RunOptions c;
  c.as = who_;
  c.env = base_env(who_);
  EXPECT_EQ(run({"/usr/bin/unshare", "--user", "/bin/true"}, c).exit_code, 0);
}

TEST_P(Launcher, HostSysctlsAreReadOnly) {
  // Opening for write changes nothing; success alone would prove the hole.
  const std::string probe = "(exec 3>/proc/sys/kernel/printk_ratelimit) 2>/dev/null && echo SYSCTL-WRITABLE; echo done";
  RunResult r = sh(probe);
  EXPECT_EQ(r.out, "done\n");
  if (GetParam() == Who::Root) {
    // Control: the same bwrap namespaces without cordon's read-only /proc/sys let a root
    // launch write the host's sysctls.
    RunOptions o;
    o.env = base_env(who_);
    RunResult control = run({"/usr/bin/bwrap", "--unshare-user", "--unshare-pid", "--cap-drop", "ALL", "--ro-bind", "/",
                             "/", "--dev", "/dev", "--proc", "/proc", "/bin/sh", "-c", probe},
                            o);
    EXPECT_NE(control.out.find("SYSCTL-WRITABLE"), std::string::npos) << control.out << control.err;
  }
}

TEST_P(Launcher, ExitStatusPropagates) {
  EXPECT_EQ(sh("exit 7").exit_code, 7);
  EXPECT_EQ(sh("exit 0").exit_code, 0);
  EXPECT_EQ(sh("exit 2").exit_code, 2);  // grep's "error": no longer one of cordon's own under run
  EXPECT_EQ(sh("exit 255").exit_code, 255);
  EXPECT_EQ(sh("kill -TERM $$").exit_code, 143);
  EXPECT_EQ(sh("kill -KILL $$").exit_code, 137);
}

bool process_with_arg_exists(const std::string& needle) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string cmdline = read_file(entry.path().string() + "/cmdline");
    if (cmdline.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST_P(Launcher, SignalsSentToTheLauncherReachTheSandbox) {
  for (int sig : {SIGTERM, SIGHUP, SIGINT}) {
    std::string marker = "31.0" + std::to_string(sig) + std::to_string(::getpid());
    RunOptions o;
    o.signal_after_ms = 1500;
    o.signal = sig;
    o.timeout_ms = 20000;
    RunResult r = sandbox({"/bin/sleep", marker}, o);
    EXPECT_FALSE(r.timed_out) << "signal " << sig;
    EXPECT_EQ(r.exit_code, 128 + sig) << "signal " << sig << ": " << r.err;
    // Nothing of the sandbox outlives the launcher (bounded wait for the kernel to reap).
    bool gone = false;
    for (int i = 0; i < 50 && !(gone = !process_with_arg_exists(marker)); ++i) ::usleep(20000);
    EXPECT_TRUE(gone) << "sandboxed process survived signal " << sig;
  }
}

// A Ctrl-C that arrives while the launcher is still setting up stops the launch: nothing runs.
// Made deterministic by starting cordon with SIGINT already pending (blocked, then raised;
// both survive exec), as if it had arrived during setup.
TEST_P(Launcher, AnInterruptBeforeTheSandboxStartsRunsNothing) {
  std::string marker = workspace_ + "/ran";
  std::string script =
      "import os, signal, sys\n"
      "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])\n"
      "os.kill(os.getpid(), signal.SIGINT)\n"
      "os.execv(sys.argv[1], sys.argv[1:])\n";
  RunOptions o;
  o.env = base_env(who_);
  o.as = who_;
  o.cwd = workspace_;
  RunResult r = run({"/usr/bin/python3", "-c", script, cordon_, "--config", config_, "run", "--workspace", workspace_,
                     "--", "/usr/bin/touch", marker},
                    o);
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
  EXPECT_NE(r.err.find("interrupted by SIGINT before the sandbox started; nothing ran"), std::string::npos) << r.err;
  EXPECT_FALSE(path_exists(marker));
  // Control: the same launch without the pending signal runs the command.
  RunResult control = sandbox({"/usr/bin/touch", marker});
  EXPECT_EQ(control.exit_code, 0) << control.err;
  EXPECT_TRUE(path_exists(marker));
}

TEST_P(Launcher, CuratedGitConfig) {
  RunResult r = sh("git config --show-origin --get user.email && git config --get user.name");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("file:/run/cordon/gitconfig"), std::string::npos) << r.out;
  RunResult w = sh("echo '[user]' >> /run/cordon/gitconfig");
  EXPECT_NE(w.exit_code, 0);  // read-only inside
}

TEST_P(Launcher, FailsClosedWithoutLaunching) {
  std::string marker = workspace_ + "/ran";
  std::vector<std::string> touch = {"/usr/bin/touch", marker};
  RunOptions o;
  o.env = base_env(who_);
  o.as = who_;
  o.cwd = workspace_;

  RunResult missing_ws = run(
      {cordon_, "--config", config_, "run", "--workspace", "/nonexistent/ws", "--", "/usr/bin/touch", marker}, o);
  EXPECT_EQ(missing_ws.exit_code, 125);
  EXPECT_NE(missing_ws.err.find("does not exist"), std::string::npos) << missing_ws.err;
  EXPECT_NE(missing_ws.err.find("fix:"), std::string::npos) << missing_ws.err;

  std::string bad_config = base_->path() + "/bad.toml";
  write_file(bad_config, "[network]\negress_jail = \"no\"\n");
  // Under run an invalid configuration or usage exits 125 like every refusal (a command may exit 2).
  RunResult invalid = run({cordon_, "--config", bad_config, "run", "--", "/usr/bin/touch", marker}, o);
  EXPECT_EQ(invalid.exit_code, kExitLaunchRefused);
  EXPECT_NE(invalid.err.find(bad_config + ":2:15: network.egress_jail"), std::string::npos) << invalid.err;
  RunResult usage = run({cordon_, "--config", config_, "run", "--frobnicate", "--", "/usr/bin/touch", marker}, o);
  EXPECT_EQ(usage.exit_code, kExitLaunchRefused) << usage.err;
  RunResult no_command = run({cordon_, "--config", config_, "run", "--workspace", workspace_}, o);
  EXPECT_EQ(no_command.exit_code, kExitLaunchRefused) << no_command.err;
  EXPECT_NE(no_command.err.find("no command given"), std::string::npos) << no_command.err;
  // A configuration path that is a directory is invalid, not "the defaults".
  RunResult directory = run({cordon_, "--config", base_->path(), "run", "--", "/usr/bin/touch", marker}, o);
  EXPECT_EQ(directory.exit_code, kExitLaunchRefused);
  EXPECT_NE(directory.err.find(base_->path() + ": not a regular file"), std::string::npos) << directory.err;
  // The other subcommands keep 2 for an invalid configuration or usage.
  EXPECT_EQ(run({cordon_, "--config", bad_config, "status"}, o).exit_code, kExitConfigError);
  EXPECT_EQ(run({cordon_, "--config", bad_config, "argv", "--", "/bin/true"}, o).exit_code, kExitConfigError);
  EXPECT_EQ(run({cordon_, "--config", base_->path(), "status"}, o).exit_code, kExitConfigError);
  EXPECT_EQ(run({cordon_, "status", "--frobnicate"}, o).exit_code, kExitConfigError);
  EXPECT_EQ(run({cordon_, "sessions", "show", "no-such-id"}, o).exit_code, kExitConfigError);

  std::string agent_config = base_->path() + "/agent.toml";
  write_file(agent_config, "[network]\negress_jail = false\n[agents.ghost]\nbinary = \"/opt/ghost/bin/ghost\"\n");
  RunResult agent = run({cordon_, "--config", agent_config, "run", "--agent", "ghost", "--", "/usr/bin/touch", marker},
                        o);
  EXPECT_EQ(agent.exit_code, 125);
  EXPECT_NE(agent.err.find("/opt/ghost/bin/ghost does not exist"), std::string::npos) << agent.err;

  std::string limits_config = base_->path() + "/limits.toml";
  // A limit this launch cannot enforce: uid 0 is exempt from RLIMIT_NPROC; the ordinary user
  // starts in a cgroup root owns, so nothing can hold a pids budget for it.
  write_file(limits_config, std::string("[network]\negress_jail = false\n[limits]\n") +
                                (GetParam() == Who::Root ? "nproc = 64\n" : "pids_max = 64\n"));
  RunResult limits = run({cordon_, "--config", limits_config, "run", "--", "/usr/bin/touch", marker}, o);
  EXPECT_EQ(limits.exit_code, 125);
  EXPECT_NE(limits.err.find("cannot be enforced"), std::string::npos) << limits.err;

  RunResult argv = run({cordon_, "--config", config_, "argv", "--json", "--", "/usr/bin/touch", marker}, o);
  EXPECT_EQ(argv.exit_code, 0) << argv.err;
  Json argv_json = Json::parse(argv.out);
  EXPECT_TRUE(argv_json["argv"].is_array() && argv_json["argv"][0].is_string()) << argv.out;
  // The workspace is bound by descriptor: the document says which source goes at which fd.
  ASSERT_TRUE(argv_json["bound_paths"].is_array() && !argv_json["bound_paths"].empty()) << argv.out;
  const Json& bound = argv_json["bound_paths"][0];
  EXPECT_EQ(bound["source"], workspace_) << argv.out;
  const std::vector<std::string> args = argv_json["argv"].get<std::vector<std::string>>();
  auto at = std::find(args.begin(), args.end(), "--bind-fd");
  ASSERT_NE(at, args.end());
  EXPECT_EQ(*(at + 1), std::to_string(bound["fd"].get<int>()));

  EXPECT_FALSE(path_exists(marker)) << "a refused launch ran the command";
}

TEST_P(Launcher, MissingBubblewrapStopsTheLaunch) {
  if (GetParam() == Who::User) GTEST_SKIP() << "masking /usr/bin/bwrap needs a root mount namespace";
  std::string marker = workspace_ + "/ran";
  // In a private mount namespace, every bwrap location the launcher knows is masked.
  std::string script =
      "for b in /usr/bin/bwrap /usr/local/bin/bwrap /bin/bwrap; do "
      "[ -e $b ] && mount --bind /dev/null $b; done; exec \"$@\"";
  RunOptions o;
  o.env = base_env(who_);
  RunResult r = run({"/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script, "sh", cordon_,
                     "--config", config_, "run", "--workspace", workspace_, "--", "/usr/bin/touch", marker},
                    o);
  EXPECT_EQ(r.exit_code, 125) << r.err;
  EXPECT_NE(r.err.find("bubblewrap (bwrap) is not installed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("apt-get install bubblewrap"), std::string::npos) << r.err;
  EXPECT_FALSE(path_exists(marker));
}

TEST_P(Launcher, StatusInsideAndOutsideNamesAWeakNetwork) {
  RunResult inside = sandbox({cordon_, "status"});
  ASSERT_EQ(inside.exit_code, 0) << inside.err;
  std::string first = inside.out.substr(0, inside.out.find('\n'));
  EXPECT_NE(first.find("inside a sandbox"), std::string::npos) << inside.out;
  EXPECT_NE(first.find("NETWORK NOT CONFINED"), std::string::npos) << "jail off must be said on line 1";
  EXPECT_NE(inside.out.find("workspace    " + workspace_ + " rw"), std::string::npos) << inside.out;
  RunOptions o;
  o.env = base_env(who_);
  o.as = who_;
  o.cwd = workspace_;
  RunResult outside = run({cordon_, "--config", config_, "status", "--json"}, o);
  ASSERT_EQ(outside.exit_code, 0) << outside.err;
  Json status = Json::parse(outside.out);
  EXPECT_EQ(status["inside_sandbox"], false) << outside.out;
  EXPECT_EQ(status["network"]["mode"], "host") << outside.out;
}

TEST_P(Launcher, DoctorJsonIsOneVersionedDocument) {
  RunOptions o;
  o.env = base_env(who_);
  o.as = who_;
  o.cwd = workspace_;
  RunResult doctor = run({cordon_, "--config", config_, "doctor", "--json"}, o);
  Json report = Json::parse(doctor.out);  // strict
  EXPECT_EQ(report["format"], "cordon-doctor");
  EXPECT_EQ(report["version"], 1);
  ASSERT_TRUE(report["checks"].is_array() && !report["checks"].empty()) << doctor.out;
  int fails = 0;
  for (const auto& row : report["checks"]) fails += row["status"] == "FAIL";
  EXPECT_EQ(report["fail"], fails);
  EXPECT_EQ(doctor.exit_code, fails == 0 ? kExitSuccess : kExitChecksFailed);  // never the count
}

// The start of one of doctor's plain rows: "  [FAIL] NAME" with NAME padded to 22 columns.
std::string doctor_row(const std::string& status, const std::string& name) {
  return "  [" + status + "] " + name + std::string(name.size() < 22 ? 22 - name.size() : 0, ' ') + " ";
}

// Doctor predicts the refusals a launch would make, each a FAIL row with its fix; control: the
// same doctor without the condition passes the row.
TEST_P(Launcher, DoctorFailsOnAConfigurationThatIsADirectory) {
  RunOptions o;
  o.env = base_env(who_);
  o.as = who_;
  RunResult doctor = run({cordon_, "--config", base_->path(), "doctor"}, o);
  EXPECT_EQ(doctor.exit_code, kExitConfigError) << doctor.out << doctor.err;
  EXPECT_NE(doctor.out.find(doctor_row("FAIL", "configuration") + base_->path() + ": not a regular file"),
            std::string::npos)
      << doctor.out;
  EXPECT_NE(doctor.out.find("[PASS] bubblewrap"), std::string::npos) << "the other rows still run: " << doctor.out;
  RunResult control = run({cordon_, "--config", config_, "doctor"}, o);
  EXPECT_NE(control.out.find(doctor_row("PASS", "configuration") + config_ + " is valid"), std::string::npos)
      << control.out;
}

// [records] export to a FIFO no collector reads: every line would be dropped, so doctor WARNs
// with the fix (no launch stops for it). Control: a path this user may create passes.
TEST_P(Launcher, DoctorWarnsOfAnExportTargetThatCannotTakeALine) {
  const std::string fifo = outside_->path() + "/collector.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  ASSERT_EQ(::chown(fifo.c_str(), who_.uid, who_.gid), 0);  // this user's, so only its missing reader stops a line
  const std::string unread = base_->path() + "/export-fifo.toml", fresh = base_->path() + "/export-file.toml";
  write_file(unread, "[records]\nexport = \"" + fifo + "\"\n");
  write_file(fresh, "[records]\nexport = \"" + outside_->path() + "/records.jsonl\"\n");
  RunOptions o;
  o.env = base_env(who_);
  o.as = who_;
  o.cwd = workspace_;
  RunResult warned = run({cordon_, "--config", unread, "doctor"}, o);
  EXPECT_NE(warned.out.find(doctor_row("WARN", "records export") + fifo + " is a FIFO no collector reads now"),
            std::string::npos)
      << warned.out;
  EXPECT_NE(warned.out.find("fix: start the collector before the sessions"), std::string::npos) << warned.out;
  RunResult passed = run({cordon_, "--config", fresh, "doctor"}, o);
  EXPECT_NE(passed.out.find(doctor_row("PASS", "records export") + outside_->path() +
                            "/records.jsonl is created (0600) at the first line"),
            std::string::npos)
      << passed.out;
  EXPECT_FALSE(path_exists(outside_->path() + "/records.jsonl")) << "doctor creates nothing";
}

// Review mode's overlay, tried as this user's sessions would have it: PASS on this host; with
// the state directory on a filesystem overlayfs cannot put an upper layer on (another overlay),
// WARN in direct mode (only --review would be refused) and FAIL with [workspace] mode = "review",
// naming the fix; and the launch is refused the same way, leaving no review behind.
TEST_P(Launcher, DoctorTriesTheReviewOverlayWhereReviewsLive) {
  RunOptions o;
  o.env = base_env(who_);
  o.as = who_;
  o.cwd = workspace_;
  RunResult here = run({cordon_, "--config", config_, "doctor"}, o);
  EXPECT_NE(here.out.find(doctor_row("PASS", "review overlay") + "overlayfs mounts in a user namespace"),
            std::string::npos)
      << here.out;
  // A state directory on an overlay: overlayfs refuses another overlay as an upper layer.
  const std::string layers = outside_->path() + "/state-overlay";
  for (const char* d : {"/lower", "/upper", "/work", "/merged"}) fs::create_directories(layers + d);
  ASSERT_EQ(
      ::mount("overlay", (layers + "/merged").c_str(), "overlay", 0,
              ("lowerdir=" + layers + "/lower,upperdir=" + layers + "/upper,workdir=" + layers + "/work").c_str()),
      0)
      << std::strerror(errno);
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{layers + "/merged"};
  ::chmod((layers + "/merged").c_str(), 01777);
  o.env["CORDON_TEST_STATE_DIR"] = layers + "/merged";
  RunResult warned = run({cordon_, "--config", config_, "doctor"}, o);
  EXPECT_NE(warned.out.find(doctor_row("WARN", "review overlay") + "review mode cannot mount its overlay"),
            std::string::npos)
      << warned.out;
  const std::string review_config = base_->path() + "/review.toml";
  write_file(review_config, read_file(config_) + "\n[workspace]\nmode = \"review\"\n");
  RunResult failed = run({cordon_, "--config", review_config, "doctor"}, o);
  EXPECT_EQ(failed.exit_code, kExitChecksFailed) << failed.out;
  EXPECT_NE(failed.out.find(doctor_row("FAIL", "review overlay")), std::string::npos) << failed.out;
  EXPECT_NE(failed.out.find("use [workspace] mode = \"direct\""), std::string::npos) << failed.out;
  RunResult refused = run({cordon_, "--config", review_config, "run", "--", "/bin/true"}, o);
  EXPECT_EQ(refused.exit_code, kExitLaunchRefused) << refused.err;
  EXPECT_NE(refused.err.find("review overlay"), std::string::npos) << refused.err;
  EXPECT_TRUE(fs::is_empty(layers + "/merged/" + std::to_string(who_.uid) + "/reviews"))
      << "a refused launch left a review";
}

TEST_P(Launcher, DoctorFailsWithoutTheMaskFile) {
  RunOptions o;
  o.env = base_env(who_);
  o.as = who_;
  o.cwd = workspace_;
  std::string empty = prefix_->path() + "/libexec/cordon/empty";
  ASSERT_TRUE(path_exists(empty));
  RunResult control = run({cordon_, "--config", config_, "doctor"}, o);
  EXPECT_NE(control.out.find("[PASS] mask file"), std::string::npos) << control.out;
  fs::remove(empty);
  RunResult doctor = run({cordon_, "--config", config_, "doctor"}, o);
  EXPECT_EQ(doctor.exit_code, kExitChecksFailed) << doctor.out;
  EXPECT_NE(doctor.out.find(doctor_row("FAIL", "mask file") + "cordon's mask file " + empty + " is missing"),
            std::string::npos)
      << doctor.out;
  EXPECT_NE(doctor.out.find("fix: reinstall cordon"), std::string::npos) << doctor.out;
  // The prediction is the launch's own refusal.
  RunResult launch = sandbox({"/bin/true"});
  EXPECT_EQ(launch.exit_code, kExitLaunchRefused);
  EXPECT_NE(launch.err.find("cordon's mask file " + empty + " is missing"), std::string::npos) << launch.err;
}

// /dev/null bound over /dev/net/tun in a private mount namespace (the host's device stays):
// it opens read-write like the tun device, and pasta would fail on it inside the jail.
TEST_P(Launcher, DoctorFailsWhenDevNetTunIsNotTheTunDevice) {
  if (!path_exists("/dev/net/tun")) GTEST_SKIP() << "no /dev/net/tun on this host";
  std::string jail_config = base_->path() + "/jail.toml";
  write_file(jail_config, "");  // the egress jail on (the default): the tun device is required
  RunOptions o;
  o.env = base_env(who_);
  o.cwd = workspace_;
  // Root makes the mount namespace; doctor runs as who_ (setpriv) inside it. Doctor opens the
  // device and launches nothing on the network. The control gets a tun node anyone may open
  // bound the same way (a host without udev keeps its own root-only, 0600).
  auto doctor_over = [&](const std::string& node, const std::string& config) {
    std::vector<std::string> argv = {"/usr/bin/unshare",
                                     "-m",
                                     "--propagation",
                                     "private",
                                     "/bin/sh",
                                     "-c",
                                     "mount --bind \"$0\" /dev/net/tun && exec \"$@\"",
                                     node};
    for (auto& word : setpriv_as(who_)) argv.push_back(word);
    argv.insert(argv.end(), {cordon_, "--config", config, "doctor"});
    return run(argv, o);
  };
  auto faked = [&](const std::string& config) { return doctor_over("/dev/null", config); };
  const std::string tun = base_->path() + "/tun";
  ASSERT_EQ(::mknod(tun.c_str(), S_IFCHR | 0666, makedev(10, 200)), 0);
  ASSERT_EQ(::chmod(tun.c_str(), 0666), 0);
  RunResult control = doctor_over(tun, jail_config);
  EXPECT_NE(control.out.find(doctor_row("PASS", "/dev/net/tun") + "the tun device (10:200)"), std::string::npos)
      << control.out;
  RunResult doctor = faked(jail_config);
  EXPECT_EQ(doctor.exit_code, kExitChecksFailed) << doctor.out << doctor.err;
  EXPECT_NE(doctor.out.find(doctor_row("FAIL", "/dev/net/tun") +
                            "/dev/net/tun is not the tun device (character device 10:200)"),
            std::string::npos)
      << doctor.out;
  EXPECT_NE(doctor.out.find("fix: recreate it: rm /dev/net/tun && mknod -m 0666 /dev/net/tun c 10 200"),
            std::string::npos)
      << doctor.out;
  // Without the jail the device is advisory: a WARN, and no FAIL from it.
  RunResult off = faked(config_);
  EXPECT_NE(off.out.find("[WARN] /dev/net/tun"), std::string::npos) << off.out;
}

INSTANTIATE_TEST_SUITE_P(As, Launcher, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
