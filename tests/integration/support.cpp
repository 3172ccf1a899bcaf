#include "support.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace fs = std::filesystem;

namespace cordon::testing {

TempDir::TempDir(const std::string& prefix) {
  std::string pattern = prefix + "XXXXXX";
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
  ::chmod(path_.c_str(), 0755);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

Identity root_identity() { return Identity{0, 0, "root", "/root"}; }

std::string who_name(const ::testing::TestParamInfo<Who>& info) {
  return info.param == Who::Root ? "root" : "unprivileged";
}

std::optional<Identity> identity_for(Who who) {
  return who == Who::Root ? std::optional<Identity>(root_identity()) : unprivileged_identity();
}

std::optional<Identity> unprivileged_identity() {
  const char* name = "cordon-test";
  passwd* pw = ::getpwnam(name);
  if (!pw && ::geteuid() == 0) {
    // Under the lock: a parallel test process may be creating it right now.
    std::string cmd = std::string(kAccountsLock) + " sh -c 'id -u " + name + " || useradd -m -s /bin/sh " + name +
                      "' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) return std::nullopt;
    pw = ::getpwnam(name);
  }
  if (!pw) return std::nullopt;
  return Identity{pw->pw_uid, pw->pw_gid, pw->pw_name, pw->pw_dir};
}

void write_file(const std::string& path, const std::string& content, mode_t mode) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  ::chmod(path.c_str(), mode);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool wait_for_path(const std::string& path, int timeout_ms) {
  for (int waited = 0; waited < timeout_ms && !path_exists(path); waited += 10)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return path_exists(path);
}

void chown_tree(const std::string& path, uid_t uid, gid_t gid) {
  ::lchown(path.c_str(), uid, gid);
  if (!fs::is_directory(path)) return;
  for (const auto& entry : fs::recursive_directory_iterator(path)) ::lchown(entry.path().c_str(), uid, gid);
}

std::string stage_install(const std::string& prefix) {
  fs::create_directories(prefix + "/bin");
  fs::create_directories(prefix + "/libexec/cordon");
  fs::copy_file(CORDON_BINARY, prefix + "/bin/cordon", fs::copy_options::overwrite_existing);
  std::string libexec = std::string(CORDON_BUILD_DIR) + "/libexec/cordon";
  if (fs::exists(libexec))
    for (const auto& entry : fs::directory_iterator(libexec))
      fs::copy_file(entry.path(), prefix + "/libexec/cordon/" + entry.path().filename().string(),
                    fs::copy_options::overwrite_existing);
  for (const auto& entry : fs::recursive_directory_iterator(prefix))
    ::chmod(entry.path().c_str(), entry.is_directory() ? 0755 : 0755);
  ::chmod(prefix.c_str(), 0755);
  return prefix + "/bin/cordon";
}

std::map<std::string, std::string> base_env(const Identity& who, const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                                            {"HOME", who.home},
                                            {"USER", who.name},
                                            {"LOGNAME", who.name},
                                            {"TERM", "xterm"},
                                            {"LANG", "C.UTF-8"},
                                            {"CORDON_TEST_STATE_DIR", test_state_dir()}};
  for (const auto& [k, v] : extra) env[k] = v;
  return env;
}

RunOptions operator_in(const Identity& who, const std::string& workspace) {
  RunOptions o;
  o.env = base_env(who, {{"GIT_CONFIG_NOSYSTEM", "1"},
                         {"GIT_CONFIG_GLOBAL", "/dev/null"},
                         {"GIT_AUTHOR_NAME", "Op"},
                         {"GIT_AUTHOR_EMAIL", "op@example.invalid"},
                         {"GIT_COMMITTER_NAME", "Op"},
                         {"GIT_COMMITTER_EMAIL", "op@example.invalid"}});
  o.as = who;
  o.cwd = workspace;
  return o;
}

std::vector<std::string> setpriv_as(const Identity& as) {
  return {"/usr/bin/setpriv", "--reuid=" + std::to_string(as.uid), "--regid=" + std::to_string(as.gid),
          "--clear-groups", "--"};
}

namespace {

void sweep_root_sessions_before_removal() {
  if (::geteuid() != 0 || !fs::exists(test_state_dir() + "/0/sessions")) return;
  std::string cmd = "CORDON_TEST_STATE_DIR='" + test_state_dir() + "' '" + std::string(CORDON_BINARY) +
                    "' sessions gc 2>&1 | grep -v '^swept 0 '";
  // What it swept is printed: a test that leaves a crashed session behind shows up in its log.
  if (std::system(cmd.c_str()) == -1) std::fprintf(stderr, "could not sweep %s\n", test_state_dir().c_str());
}

}  // namespace

const std::string& test_state_dir() {
  // One per test process, world-writable and sticky like /tmp: each user's launches make their
  // own 0700 directory in it. Removed when the process exits. The path is never destroyed (a
  // pointer to a string that is never freed): the atexit handler is registered while the
  // static is being made, so it runs after the static's destruction and would read a dead string
  // (it did: every test process left its directory behind, and the throwing remove_all aborted).
  static const std::string* const dir = [] {
    auto* path = new std::string("/tmp/cordon-test-state-" + std::to_string(::getpid()));
    fs::create_directories(*path);
    ::chmod(path->c_str(), 01777);
    std::atexit([] {
      // A test that SIGKILLs a root launcher may leave its session cgroups: the next launch's
      // sweep would remove them, and this is the last launch that will ever see these records.
      sweep_root_sessions_before_removal();
      std::error_code ec;
      fs::remove_all(test_state_dir(), ec);
      if (ec)
        std::fprintf(stderr, "test state dir %s not removed: %s\n", test_state_dir().c_str(), ec.message().c_str());
    });
    return path;
  }();
  return *dir;
}

// Shell commands the tests run (networld, wrappers, installs) inherit it as well.
const bool kStateDirExported = [] { return ::setenv("CORDON_TEST_STATE_DIR", test_state_dir().c_str(), 1) == 0; }();

std::string sessions_dir_of(const Identity& who) {
  return test_state_dir() + "/" + std::to_string(who.uid) + "/sessions";
}

std::set<std::string> session_records(const Identity& who, const std::string& workspace) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(sessions_dir_of(who), ec))
    if (e.path().extension() == ".json") {
      std::vector<Json> lines = record_lines(e.path().string());
      if (!lines.empty() && lines[0].contains("workspace") && bytes_from_json(lines[0]["workspace"]) == workspace)
        out.insert(e.path().string());
    }
  return out;
}

std::vector<Json> record_lines(const std::string& path) {
  std::vector<Json> out;
  std::istringstream text(read_file(path));
  std::string line;
  while (std::getline(text, line)) {
    try {
      out.push_back(Json::parse(line));
    } catch (const std::exception& e) {
      ADD_FAILURE() << path << ": a line is not JSON (" << e.what() << "): " << line;
    }
  }
  return out;
}

RunResult run_with_fixed_config(const std::string& fixed_path, const std::string& config_text,
                                const std::vector<std::string>& argv, RunOptions o) {
  if (::geteuid() != 0) throw std::runtime_error("run_with_fixed_config needs root");
  TempDir scratch("/tmp/cordon-fixedcfg-");
  const std::string staged = scratch.path() + "/config.toml";
  write_file(staged, config_text, 0644);
  fs::create_directories(scratch.path() + "/upper");
  fs::create_directories(scratch.path() + "/work");
  const std::string dir = fs::path(fixed_path).parent_path().string();
  std::string anchor = dir;
  while (!fs::exists(anchor)) anchor = fs::path(anchor).parent_path().string();
  if (anchor == "/" || anchor.empty()) throw std::runtime_error("refusing to overlay / for " + fixed_path);
  // $1 anchor, $2 scratch, $3 config dir, $4 staged file, $5 fixed path; then the command.
  const std::string script =
      "set -e; mount -t overlay overlay -o \"lowerdir=$1,upperdir=$2/upper,workdir=$2/work\" \"$1\"; "
      "mkdir -p \"$3\"; cp \"$4\" \"$5\"; chmod 0644 \"$5\"; shift 5; exec \"$@\"";
  std::vector<std::string> full = {
      "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script, "sh", anchor,
      scratch.path(),     dir,  staged,          fixed_path};
  if (o.as) {
    for (auto& word : setpriv_as(*o.as)) full.push_back(word);
    o.as.reset();
  }
  full.insert(full.end(), argv.begin(), argv.end());
  return run(full, o);
}

namespace {

void drain(int fd, std::string& into) {
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) into.append(buffer, static_cast<size_t>(n));
}

// argv and environment as execve takes them, built before the fork.
struct ExecImage {
  ExecImage(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
    for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
    // Every cordon a test starts keeps its records in the test's private state directory.
    if (!env.count("CORDON_TEST_STATE_DIR")) env_strings.push_back("CORDON_TEST_STATE_DIR=" + test_state_dir());
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
  }
  std::vector<std::string> env_strings;
  std::vector<char*> envp, args;
};

// In a forked child: become `o.as` (if set), enter `o.cwd`, exec. 126/127 on failure.
[[noreturn]] void become_and_exec(const ExecImage& image, const RunOptions& o) {
  if (o.as) {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(o.as->gid, o.as->gid, o.as->gid) != 0 ||
        ::setresuid(o.as->uid, o.as->uid, o.as->uid) != 0)
      ::_exit(126);
  }
  if (::chdir(o.cwd.c_str()) != 0) ::_exit(126);
  ::execve(image.args[0], image.args.data(), image.envp.data());
  ::_exit(127);
}

}  // namespace

RunResult run(const std::vector<std::string>& argv, const RunOptions& o) {
  const ExecImage image(argv, o.env);

  int out_pipe[2], err_pipe[2], in_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) || ::pipe2(err_pipe, O_CLOEXEC) || ::pipe2(in_pipe, O_CLOEXEC))
    throw std::runtime_error("pipe");
  int master = -1, slave = -1;
  if (o.on_pty) {
    winsize ws{o.pty_rows, o.pty_cols, 0, 0};
    if (::openpty(&master, &slave, nullptr, nullptr, o.pty_rows ? &ws : nullptr) != 0)
      throw std::runtime_error("openpty");
    ::fcntl(master, F_SETFD, FD_CLOEXEC);
    ::fcntl(slave, F_SETFD, FD_CLOEXEC);
  }
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork");
  if (pid == 0) {
    ::setsid();  // own session and process group: a timeout kills the whole group
    if (o.on_pty) {
      ::ioctl(slave, TIOCSCTTY, 0);
      ::dup2(slave, 0);
      ::dup2(slave, 1);
      ::dup2(slave, 2);
    } else {
      ::dup2(in_pipe[0], 0);
      ::dup2(out_pipe[1], 1);
      ::dup2(err_pipe[1], 2);
    }
    become_and_exec(image, o);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(in_pipe[0]);
  if (slave >= 0) ::close(slave);
  if (!o.stdin_text.empty() && !o.on_pty) {
    ssize_t ignored = ::write(in_pipe[1], o.stdin_text.data(), o.stdin_text.size());
    (void)ignored;
  }
  ::close(in_pipe[1]);

  RunResult result;
  auto start = std::chrono::steady_clock::now();
  bool signalled = false;
  int status = 0;
  std::vector<pollfd> fds;
  int read_fds[2] = {o.on_pty ? master : out_pipe[0], o.on_pty ? -1 : err_pipe[0]};
  for (;;) {
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)
                       .count();
    if (!signalled && o.signal_after_ms >= 0 && elapsed >= o.signal_after_ms) {
      ::kill(pid, o.signal);
      signalled = true;
    }
    if (o.on_pty && o.pty_after_ms >= 0 && elapsed >= o.pty_after_ms) {
      if (o.resize_rows) {
        winsize ws{o.resize_rows, o.resize_cols, 0, 0};
        ::ioctl(master, TIOCSWINSZ, &ws);  // the kernel sends SIGWINCH to the foreground group
      }
      if (!o.pty_input.empty()) {
        ssize_t ignored = ::write(master, o.pty_input.data(), o.pty_input.size());
        (void)ignored;
      }
      const_cast<RunOptions&>(o).pty_after_ms = -1;  // once
    }
    if (elapsed >= o.timeout_ms) {
      ::kill(-pid, SIGKILL);
      result.timed_out = true;
    }
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    pollfd p[2];
    int n = 0;
    for (int fd : read_fds)
      if (fd >= 0) p[n++] = pollfd{fd, POLLIN, 0};
    ::poll(p, static_cast<nfds_t>(n), 20);
    for (int i = 0; i < n; ++i) {
      if (!(p[i].revents & (POLLIN | POLLHUP))) continue;
      char buffer[4096];
      ssize_t got = ::read(p[i].fd, buffer, sizeof buffer);
      if (got > 0) (p[i].fd == read_fds[1] ? result.err : result.out).append(buffer, static_cast<size_t>(got));
    }
    if (r == pid) break;
  }
  int flags = ::fcntl(read_fds[0], F_GETFL);
  ::fcntl(read_fds[0], F_SETFL, flags | O_NONBLOCK);
  drain(read_fds[0], result.out);
  if (read_fds[1] >= 0) {
    ::fcntl(read_fds[1], F_SETFL, O_NONBLOCK);
    drain(read_fds[1], result.err);
  }
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  if (master >= 0) ::close(master);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

pid_t spawn_background(const std::vector<std::string>& argv, const RunOptions& o) {
  const ExecImage image(argv, o.env);
  pid_t pid = ::fork();
  if (pid != 0) {
    if (pid > 0) ::setpgid(pid, pid);
    return pid;
  }
  ::setpgid(0, 0);
  int null_fd = ::open("/dev/null", O_RDWR);
  ::dup2(null_fd, 0);
  ::dup2(null_fd, 1);
  ::dup2(null_fd, 2);
  become_and_exec(image, o);
}

std::map<std::string, std::string> env_with_other_home(const Identity& who, const std::string& dir) {
  fs::create_directories(dir);
  chown_tree(dir, who.uid, who.gid);
  return base_env(who, {{"HOME", dir}});
}

HomeStateLock::HomeStateLock(const std::string& name) {
  fd_ = ::open(("/run/lock/cordon-test-" + name + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ >= 0) ::flock(fd_, LOCK_EX);
}

HomeStateLock::~HomeStateLock() {
  if (fd_ >= 0) ::close(fd_);
}

pid_t spawn_on_terminal(const std::vector<std::string>& argv, const RunOptions& o, int slave) {
  const ExecImage image(argv, o.env);
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  // A session of its own whose controlling terminal is `slave`, as a login shell's job has.
  ::setsid();
  ::ioctl(slave, TIOCSCTTY, 0);
  for (int fd = 0; fd < 3; ++fd) ::dup2(slave, fd);
  become_and_exec(image, o);
}

void stop_background(pid_t pid) {
  if (pid <= 0) return;
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

unsigned long long process_start_time(pid_t pid) {
  std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  return 0;
}

UniqueFd loopback_listener() {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (!fd.valid() || ::bind(fd.get(), reinterpret_cast<sockaddr*>(&at), sizeof at) != 0 || ::listen(fd.get(), 4) != 0)
    return UniqueFd();
  return fd;
}

}  // namespace cordon::testing
