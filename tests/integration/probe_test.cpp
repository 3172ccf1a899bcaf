// cordon-probe against real sandboxes. The full cordon sandbox must leave every probe
// BLOCKED (the network probes that need the egress jail are run in a network world the test
// builds, with and without the jail); and every probe has a positive control: the same probe
// where its defence is absent (outside the sandbox, in a --test-weaken sandbox, in a bare
// bwrap, or in a network world without the jail) must report [ESCAPED]. A probe that cannot
// report an escape is a defect. Needs root (creates the test user, plants sockets and a
// file-capability binary); sandboxes run as root and as the unprivileged user.
//
// Nothing here sends a packet from the machine's own network namespace: sandboxes in this
// namespace run the probe without --net-targets (route lookups and UDP connect() only); every
// connection attempt happens inside the NetWorld (tests/integration/networld.sh).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "cgroup_scope.h"
#include "common/json_codec.h"
#include "common/review_bait.h"
#include "jail_world.h"
#include "launch_fixture.h"
#include "launcher/commands/probe_bait.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

// Probes whose verdict depends on the network the sandbox is in (the egress jail).
const std::set<std::string> kNetworkDependent = {"01", "02", "03", "04", "05", "06", "07", "10"};

// One run of cordon-probe, parsed.
struct ProbeRun {
  RunResult raw;
  std::map<std::string, std::string> verdict;  // id -> BLOCKED / ESCAPED / INCONCLUSIVE
  std::map<std::string, std::string> row;      // id -> the whole row
  std::string summary, result;

  std::string v(const std::string& id) const {
    auto it = verdict.find(id);
    return it == verdict.end() ? "(no row)" : it->second;
  }
  std::string r(const std::string& id) const {
    auto it = row.find(id);
    return it == row.end() ? "(no row for " + id + ")" : it->second;
  }
  std::string dump() const { return "--- stdout\n" + raw.out + "--- stderr\n" + raw.err; }
};

ProbeRun parse_probe(const RunResult& raw) {
  ProbeRun p;
  p.raw = raw;
  std::istringstream lines(raw.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("  [", 0) == 0) {
      auto close = line.find("] ");
      if (close == std::string::npos || close + 4 > line.size()) continue;
      std::string id = line.substr(close + 2, 2);
      p.verdict[id] = line.substr(3, close - 3);
      p.row[id] = line;
    } else if (line.rfind("Adversarial summary: ", 0) == 0) {
      p.summary = line;
    } else if (line.rfind("RESULT: ", 0) == 0) {
      p.result = line;
    }
  }
  return p;
}

ProbeRun parse_shell(const CommandResult& c) {
  RunResult r;
  r.exit_code = c.status;
  r.out = c.output;
  return parse_probe(r);
}

std::string join(const std::vector<std::string>& items, const std::string& sep = ",") {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

void expect_escaped(const ProbeRun& run, const std::vector<std::string>& ids, const std::string& control) {
  for (const auto& id : ids)
    EXPECT_EQ(run.v(id), "ESCAPED") << control << ": probe " << id << " must report the escape\n"
                                    << run.r(id) << "\n"
                                    << run.dump();
}

// A listening unix stream socket at a path, connectable by anyone (0666). Connections wait in
// the backlog, which is all a probe's connect() needs; nothing is ever read or written.
class UnixListener {
 public:
  explicit UnixListener(const std::string& path) : path_(path) {
    fs::create_directories(fs::path(path).parent_path());
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
    ::unlink(path.c_str());
    ok_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0 && ::listen(fd_, 128) == 0;
    ::chmod(path.c_str(), 0666);
  }
  ~UnixListener() {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());
  }
  bool ok() const { return ok_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool ok_ = false;
};

// A listening abstract unix socket inside another network namespace (abstract names are per
// network namespace): a forked child joins it, listens, and waits for the parent to finish.
class AbstractListenerIn {
 public:
  AbstractListenerIn(const std::string& netns_path, const std::string& name) {
    int ready[2], stop[2];
    if (::pipe2(ready, O_CLOEXEC) != 0 || ::pipe2(stop, O_CLOEXEC) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready[0]);
      ::close(stop[1]);
      ::alarm(300);
      int ns = ::open(netns_path.c_str(), O_RDONLY | O_CLOEXEC);
      if (ns < 0 || ::setns(ns, CLONE_NEWNET) != 0) ::_exit(1);
      int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
      sockaddr_un sa{};
      sa.sun_family = AF_UNIX;
      std::memcpy(sa.sun_path + 1, name.data(), name.size());
      socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
      if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&sa), len) != 0 || ::listen(fd, 128) != 0) ::_exit(2);
      if (::write(ready[1], "R", 1) != 1) ::_exit(3);
      char c;
      while (::read(stop[0], &c, 1) > 0) {
      }
      ::_exit(0);
    }
    ::close(ready[1]);
    ::close(stop[0]);
    stop_ = stop[1];
    char c = 0;
    ok_ = pid_ > 0 && ::read(ready[0], &c, 1) == 1 && c == 'R';
    ::close(ready[0]);
  }
  ~AbstractListenerIn() {
    if (stop_ >= 0) ::close(stop_);
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  }
  bool ok() const { return ok_; }

 private:
  pid_t pid_ = -1;
  int stop_ = -1;
  bool ok_ = false;
};

// Names of .cordon-probe-* entries directly in `dir` (markers a probe failed to remove).
std::set<std::string> markers_in(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(".cordon-probe-", 0) == 0) out.insert(e.path().string());
  return out;
}

class Probe : public LaunchFixture {
 protected:
  void SetUp() override {
    // Root also plants the host sockets and sets the file capabilities some probes meet.
    stage("/tmp/cordon-pt-");
    if (IsSkipped() || HasFatalFailure()) return;
    tag_ = std::to_string(::getpid());
    outside_ = std::make_unique<TempDir>("/var/tmp/cordon-pt-");
    home_dir_ = std::make_unique<TempDir>("/var/tmp/cordon-pth-");
    probe_ = base_->path() + "/prefix/libexec/cordon/cordon-probe";
    ASSERT_TRUE(path_exists(probe_)) << "cordon-probe was not built";
    write_file(config_, "[network]\negress_jail = false\n");
    make_workspace();
    chown_tree(outside_->path(), who_.uid, who_.gid);
    // A home of the test's own (so no real home is read or written), with a credential canary.
    home_ = home_dir_->path();
    home_canary_ = home_ + "/.ssh/cordon-probe-canary-" + tag_;
    write_file(home_canary_, "home-canary-" + tag_ + "\n", 0600);
    write_file(home_ + "/.gitconfig", "[user]\n\temail = host-" + tag_ + "@example.invalid\n", 0644);
    chown_tree(home_, who_.uid, who_.gid);
    // Another project beside the workspace.
    other_ = base_->path() + "/other";
    project_canary_ = other_ + "/secret-" + tag_;
    write_file(project_canary_, "project-canary-" + tag_ + "\n", 0644);
    // A host process outside every sandbox, started in the other project's directory.
    RunOptions t;
    t.as = who_;
    t.cwd = other_;
    t.env = {{"PATH", "/usr/bin:/bin"}, {"CORDON_PT_TARGET_TOKEN", "target-" + tag_}};
    target_ = spawn_background({"/bin/sleep", "600"}, t);
    ASSERT_GT(target_, 0);
    for (int i = 0; i < 200 && read_file("/proc/" + std::to_string(target_) + "/comm") != "sleep\n"; ++i)
      ::usleep(5000);
    target_arg_ = std::to_string(target_) + ":" + std::to_string(process_start_time(target_));
  }

  void TearDown() override { stop_background(target_); }

  std::map<std::string, std::string> env(const std::map<std::string, std::string>& extra = {}) const {
    auto e = base_env(who_, extra);
    e["HOME"] = home_;
    return e;
  }

  std::vector<std::string> inputs() const {
    return {"--target-pid", target_arg_, "--canary", home_canary_, "--canary", project_canary_};
  }

  std::vector<std::string> cordon_argv(const std::vector<std::string>& weaken, const std::vector<std::string>& args,
                                       const std::string& config = "") const {
    std::vector<std::string> argv = {cordon_, "--config",    config.empty() ? config_ : config,
                                     "run",   "--workspace", workspace_};
    for (const auto& w : weaken) argv.insert(argv.end(), {"--test-weaken", w});
    argv.push_back("--");
    argv.push_back(probe_);
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  ProbeRun in_cordon(const std::vector<std::string>& weaken, const std::vector<std::string>& args, RunOptions o = {},
                     const std::string& config = "") const {
    if (o.env.empty()) o.env = env();
    o.as = who_;
    o.cwd = workspace_;
    return parse_probe(run(cordon_argv(weaken, args, config), o));
  }

  // The probe outside any sandbox, from a copy the user owns (as an agent's own binary would
  // be), optionally under `wrapper` (e.g. unshare).
  ProbeRun outside(const std::vector<std::string>& args, const std::vector<std::string>& wrapper = {},
                   RunOptions o = {}) {
    const std::string dir = base_->path() + "/own-bin";
    const std::string copy = dir + "/cordon-probe";
    if (!path_exists(copy)) {
      fs::create_directories(dir);
      fs::copy_file(probe_, copy, fs::copy_options::overwrite_existing);
      ::chmod(copy.c_str(), 0755);
      chown_tree(dir, who_.uid, who_.gid);
    }
    std::vector<std::string> argv = wrapper;
    argv.push_back(copy);
    argv.insert(argv.end(), args.begin(), args.end());
    if (o.env.empty()) o.env = env();
    o.as = who_;
    o.cwd = workspace_;
    return parse_probe(run(argv, o));
  }

  // Host-side sockets the credential probes look for, and a file-capability binary in the
  // workspace. Kept alive by the returned holder.
  // Tests running in parallel share /tmp/.X11-unix and /run/user/UID: a lock held from
  // planting to cleanup lets the one that created a directory also remove it.
  struct Planted {
    int lock = -1;
    std::vector<std::unique_ptr<UnixListener>> sockets;
    std::vector<std::string> created_dirs;  // removed afterwards (only those we made)
    ~Planted() {
      sockets.clear();
      for (auto it = created_dirs.rbegin(); it != created_dirs.rend(); ++it) ::rmdir(it->c_str());
      if (lock >= 0) ::close(lock);
    }
  };

  std::unique_ptr<Planted> plant_host_sockets() const {
    auto p = std::make_unique<Planted>();
    p->lock = ::open("/run/lock/cordon-probe-test.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (p->lock >= 0) ::flock(p->lock, LOCK_EX);
    const std::string run_user = "/run/user/" + std::to_string(who_.uid);
    for (const std::string& dir : {std::string("/tmp/.X11-unix"), std::string("/run/user"), run_user}) {
      if (!path_exists(dir)) {
        fs::create_directories(dir);
        p->created_dirs.push_back(dir);
      }
    }
    ::chmod("/tmp/.X11-unix", 01777);
    if (std::find(p->created_dirs.begin(), p->created_dirs.end(), run_user) != p->created_dirs.end()) {
      ::chown(run_user.c_str(), who_.uid, who_.gid);
      ::chmod(run_user.c_str(), 0700);
    }
    const std::string ssh_dir = "/tmp/ssh-cordonpt" + tag_;
    fs::create_directories(ssh_dir);
    p->created_dirs.push_back(ssh_dir);
    ::chown(ssh_dir.c_str(), who_.uid, who_.gid);
    std::vector<std::string> paths = {"/tmp/.X11-unix/X" + std::to_string(60 + ::getpid() % 30),
                                      "/tmp/vscode-ipc-cordonpt-" + tag_ + ".sock", ssh_dir + "/agent." + tag_,
                                      run_user + "/docker.sock"};
    if (!path_exists(run_user + "/bus")) paths.push_back(run_user + "/bus");
    for (const auto& path : paths) {
      p->sockets.push_back(std::make_unique<UnixListener>(path));
      EXPECT_TRUE(p->sockets.back()->ok()) << "could not listen on " << path;
    }
    return p;
  }

  // A copy of echo with cap_net_raw+ep in the workspace: the setcap a host admin could do.
  std::string plant_filecap_binary() const {
    const std::string path = workspace_ + "/capecho-" + tag_;
    fs::copy_file("/usr/bin/echo", path, fs::copy_options::overwrite_existing);
    ::chmod(path.c_str(), 0755);
    RunOptions o;
    o.env = base_env(root_identity());
    RunResult r = run({"/usr/sbin/setcap", "cap_net_raw+ep", path}, o);
    EXPECT_EQ(r.exit_code, 0) << "setcap: " << r.err;
    return path;
  }

  bool root() const { return GetParam() == Who::Root; }

  std::string tag_;
  std::unique_ptr<TempDir> outside_, home_dir_;
  std::string probe_, home_, home_canary_, other_, project_canary_;
  pid_t target_ = -1;
  std::string target_arg_;
};

// --- The contract ----------------------------------------------------------------------

TEST_P(Probe, ListUsageSelftestAndResultLines) {
  RunOptions o;
  o.env = env();
  o.as = who_;
  RunResult list = run({probe_, "--list"}, o);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::set<std::string> ids, families;
  std::istringstream lines(list.out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string id, family;
    words >> id >> family;
    ids.insert(id);
    families.insert(family);
  }
  EXPECT_GE(ids.size(), 30u) << list.out;
  EXPECT_EQ(families, (std::set<std::string>{"egress", "filesystem", "privilege", "process", "terminal", "kernel",
                                             "credentials"}));

  RunResult self = run({probe_, "--selftest"}, o);
  EXPECT_EQ(self.exit_code, 0) << self.out;
  EXPECT_NE(self.out.find("selftest: ok"), std::string::npos) << self.out;

  EXPECT_EQ(run({probe_, "--bogus"}, o).exit_code, 64);
  EXPECT_EQ(run({probe_, "--only", "99"}, o).exit_code, 64);
  EXPECT_EQ(run({probe_, "--net-targets", "tcp:10.1.2.3"}, o).exit_code, 64);

  // One probe that holds in the sandbox: SANDBOX OK, exit 0, the battery's count carried in.
  ProbeRun ok = in_cordon({}, {"--only", "44", "--checks-passed", "27"});
  EXPECT_EQ(ok.raw.exit_code, 0) << ok.dump();
  EXPECT_EQ(ok.summary, "Adversarial summary: 1 BLOCKED / 0 ESCAPED / 0 INCONCLUSIVE") << ok.dump();
  EXPECT_EQ(ok.result, "RESULT: SANDBOX OK (27 checks + 1 probes)") << ok.dump();
  EXPECT_NE(ok.r("44").find("  [BLOCKED] 44 priv-chroot \u2014 chroot: EPERM"), std::string::npos) << ok.dump();

  // Standalone (no --checks-passed): 0 checks. Without a target: AUDIT INCOMPLETE, exit 2.
  ProbeRun incomplete = in_cordon({}, {"--only", "44,60"});
  EXPECT_EQ(incomplete.raw.exit_code, 2) << incomplete.dump();
  EXPECT_EQ(incomplete.result, "RESULT: AUDIT INCOMPLETE (1 inconclusive: 60 proc-signal)") << incomplete.dump();

  // JSON carries the same content.
  RunOptions jo;
  jo.env = env();
  jo.as = who_;
  jo.cwd = workspace_;
  RunResult json = run(cordon_argv({}, {"--json", "--only", "44", "--checks-passed", "3"}), jo);
  EXPECT_EQ(json.exit_code, 0) << json.out << json.err;
  Json report = Json::parse(json.out);  // strict
  EXPECT_EQ(report["tool"], "cordon-probe") << json.out;
  ASSERT_EQ(report["probes"].size(), 1u) << json.out;
  const Json& probe = report["probes"][0];
  EXPECT_EQ(probe["id"], "44");
  EXPECT_EQ(probe["name"], "priv-chroot");
  EXPECT_EQ(probe["family"], "privilege");
  EXPECT_EQ(probe["verdict"], "BLOCKED") << json.out;
  EXPECT_EQ(report["result"], "SANDBOX OK") << json.out;
  EXPECT_EQ(report["result_line"], "RESULT: SANDBOX OK (3 checks + 1 probes)");
  EXPECT_EQ(report["exit_code"], 0);
  EXPECT_EQ(report["in_cordon_session"], true);
}

// The agent-driven audit ships in three files with one body: generic, Claude Code command,
// Codex prompt. It must name every probe (so the "novel" list cannot drift) and say that an
// agent's exit status is not a CI result.
TEST(ProbeAudit, CommandsShareOneBodyAndNameEveryProbe) {
  const std::string root = std::string(CORDON_SOURCE_DIR) + "/libexec/";
  const std::string body = read_file(root + "verify-sandbox.md");
  ASSERT_FALSE(body.empty());
  for (const char* variant : {"claude/commands/verify-sandbox.md", "codex/prompts/verify-sandbox.md"}) {
    std::string text = read_file(root + variant);
    ASSERT_EQ(text.rfind("---\ndescription: ", 0), 0u) << variant << ": front matter with a description";
    auto end = text.find("\n---\n\n", 4);
    ASSERT_NE(end, std::string::npos) << variant;
    EXPECT_EQ(text.substr(end + 6), body) << variant << " differs from libexec/verify-sandbox.md";
  }
  EXPECT_NE(body.find("An agent's exit status is not a CI result."), std::string::npos);
  for (const char* line :
       {"RESULT: SANDBOX OK (C checks + P10 probes)", "RESULT: AUDIT INCOMPLETE", "RESULT: SANDBOX LEAKING",
        "cordon verify --deep", "\"$L/cordon-battery\"", "\"$L/cordon-probe\""})
    EXPECT_NE(body.find(line), std::string::npos) << line;
  const std::string probe = std::string(CORDON_BUILD_DIR) + "/libexec/cordon/cordon-probe";
  ASSERT_TRUE(path_exists(probe)) << "cordon-probe was not built";
  RunOptions o;
  o.env = {{"PATH", "/usr/bin:/bin"}};
  RunResult list = run({probe, "--list"}, o);
  std::istringstream lines(list.out);
  std::string line;
  int named = 0;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string id, family, name;
    words >> id >> family >> name;
    EXPECT_NE(body.find(name), std::string::npos) << "the audit does not list probe " << id << " " << name;
    ++named;
  }
  EXPECT_GE(named, 30);
}

// --- The full sandbox -----------------------------------------------------------------

TEST_P(Probe, FullSandboxNothingEscapes) {
  auto planted = plant_host_sockets();
  plant_filecap_binary();
  const auto var_tmp_before = markers_in("/var/tmp"), etc_before = markers_in("/etc");
  // The caller leaks a directory descriptor (fd 7) pointing outside: cordon must not pass it on.
  std::vector<std::string> argv = {"/bin/sh", "-c", "exec 7<\"$0\"; exec \"$@\"", outside_->path()};
  auto inner = cordon_argv({}, inputs());
  argv.insert(argv.end(), inner.begin(), inner.end());
  RunOptions o;
  o.env = env({{"GH_TOKEN", "ghp_planted" + tag_}, {"SSH_AUTH_SOCK", "/tmp/ssh-cordonpt" + tag_ + "/agent." + tag_}});
  o.as = who_;
  o.cwd = workspace_;
  ProbeRun r = parse_probe(run(argv, o));
  ASSERT_GE(r.verdict.size(), 30u) << r.dump();

  for (const auto& [id, verdict] : r.verdict) {
    if (kNetworkDependent.count(id)) {
      // This namespace is the machine's (jail off) and no target is given: nothing is sent,
      // so these can only be BLOCKED or INCONCLUSIVE. The world tests below decide them.
      EXPECT_NE(verdict, "ESCAPED") << r.r(id);
      continue;
    }
    EXPECT_EQ(verdict, "BLOCKED") << r.r(id);
  }
  EXPECT_NE(r.r("28").find("none reaches outside this view"), std::string::npos) << r.r("28");
  EXPECT_NE(r.r("60").find("ESRCH"), std::string::npos) << r.r("60");
  EXPECT_NE(r.r("41").find("setting file capabilities on a copy of echo: EPERM"), std::string::npos) << r.r("41");
  EXPECT_NE(r.r("41").find("capecho-" + tag_), std::string::npos) << "the planted binary was tried: " << r.r("41");
  EXPECT_EQ(r.raw.exit_code, 2) << r.dump();  // incomplete (network probes undecided), never leaking
  // No secret value in the output; nothing left behind.
  for (const std::string& secret :
       {"home-canary-" + tag_, "project-canary-" + tag_, "target-" + tag_, "ghp_planted" + tag_})
    EXPECT_EQ(r.raw.out.find(secret), std::string::npos) << secret;
  EXPECT_EQ(markers_in(workspace_), std::set<std::string>{});
  EXPECT_EQ(markers_in(outside_->path()), std::set<std::string>{});
  EXPECT_EQ(markers_in("/var/tmp"), var_tmp_before);
  EXPECT_EQ(markers_in("/etc"), etc_before);
}

// Probe 34 in a review-mode workspace: inside, every edit, rename, deletion and new file
// succeeds; outside, the host copies are judged as `cordon verify --deep` judges them
// (ProbeBait::review_escape): unchanged. With the host tree bound instead of the overlay
// (review-direct), the same attempts reach it: the judgement is ESCAPED.
TEST_P(Probe, Review34KeepsTheHostTreeAndEscapesWithTheHostTreeBoundInstead) {
  const std::string review_config = base_->path() + "/review.toml";
  write_file(review_config, read_file(config_) + "\n[workspace]\nmode = \"review\"\n");
  for (const bool weakened : {false, true}) {
    ProbeBait bait(who_.home, workspace_, true);
    for (const auto& entry : fs::directory_iterator(workspace_))
      if (entry.path().filename().string().rfind(kReviewBaitPrefix, 0) == 0)
        ::chown(entry.path().c_str(), who_.uid, who_.gid);  // the launcher's own user plants it in verify
    ProbeRun r = in_cordon(weakened ? std::vector<std::string>{"review-direct"} : std::vector<std::string>{},
                           {"--only", "34"}, {}, review_config);
    EXPECT_EQ(r.verdict["34"], "BLOCKED") << r.dump();  // inside, every write succeeded
    EXPECT_NE(r.r("34").find("judged after the session, outside"), std::string::npos) << r.r("34");
    const std::string escaped = bait.review_escape();
    if (weakened) {
      EXPECT_NE(escaped.find("changed in the host tree"), std::string::npos) << escaped;
      EXPECT_NE(escaped.find("is gone from the host tree"), std::string::npos) << escaped;
      EXPECT_NE(escaped.find("appeared in the host tree"), std::string::npos) << escaped;
    } else {
      EXPECT_EQ(escaped, "") << "review mode let the session's writes reach the host tree";
    }
  }
  // In direct mode the probe does not attempt what that mode allows by design.
  ProbeRun direct = in_cordon({}, {"--only", "34"});
  EXPECT_EQ(direct.verdict["34"], "BLOCKED") << direct.dump();
  EXPECT_NE(direct.r("34").find("not attempted"), std::string::npos) << direct.r("34");
}

TEST_P(Probe, TerminalInjectionOnARealTerminal) {
  RunOptions o;
  o.on_pty = true;
  o.env = env();
  ProbeRun in = in_cordon({}, {"--only", "70,71"}, o);
  EXPECT_EQ(in.v("70"), "BLOCKED") << in.dump();
  EXPECT_NE(in.r("70").find("the controlling terminal: TIOCSTI EPERM"), std::string::npos) << in.dump();
  EXPECT_EQ(in.v("71"), "BLOCKED") << in.dump();
  // Control: the same terminal outside the sandbox accepts TIOCSTI (legacy_tiocsti=1 here).
  if (read_file("/proc/sys/dev/tty/legacy_tiocsti").rfind("1", 0) == 0) {
    RunOptions c;
    c.on_pty = true;
    ProbeRun out = outside({"--only", "70"}, {}, c);
    EXPECT_EQ(out.v("70"), "ESCAPED") << out.dump();
    EXPECT_NE(out.r("70").find("the controlling terminal accepted TIOCSTI"), std::string::npos) << out.dump();
  }
}

// On a terminal bwrap binds the session's own pty at /dev/console: probe 31 opening it is no
// host device (`cordon verify --deep` on a terminal reported LEAKING for it). The control, with
// the host's /dev (root: an unprivileged user opens none of its nodes), still escapes there.
TEST_P(Probe, TheSessionsOwnTerminalAtDevConsoleIsNoHostDevice) {
  RunOptions o;
  o.on_pty = true;
  o.env = env();
  ProbeRun in = in_cordon({}, {"--only", "31"}, o);
  EXPECT_EQ(in.v("31"), "BLOCKED") << in.dump();
  EXPECT_NE(in.r("31").find("/dev/console is this session's own terminal"), std::string::npos) << in.dump();
  if (!root()) return;
  ProbeRun host = in_cordon({"host-dev"}, {"--only", "31"}, o);
  EXPECT_EQ(host.v("31"), "ESCAPED") << host.dump();
}

// The operator's terminal is out of reach on a terminal; with the pty made but the operator's
// terminal handed in (test hook), 72 escapes through the held descriptors and /dev/tty.
TEST_P(Probe, OperatorTerminalOutOfReachOnARealTerminal) {
  RunOptions o;
  o.on_pty = true;
  o.env = env();
  ProbeRun in = in_cordon({}, {"--only", "72"}, o);
  EXPECT_EQ(in.v("72"), "BLOCKED") << in.dump();
  EXPECT_NE(in.r("72").find("not the operator's"), std::string::npos) << in.dump();
#ifdef CORDON_TEST_HOOKS
  ProbeRun shared = in_cordon({"shared-terminal"}, {"--only", "72"}, o);
  EXPECT_EQ(shared.v("72"), "ESCAPED") << shared.dump();
  EXPECT_NE(shared.r("72").find("is the operator's terminal"), std::string::npos) << shared.dump();
#endif
}

// --- Positive controls: weakened cordon sandboxes --------------------------------------

#ifdef CORDON_TEST_HOOKS

TEST_P(Probe, ControlNoSeccomp) {
  ProbeRun r = in_cordon({"no-seccomp"}, {"--only", "11,70,81,82,83,84"});
  expect_escaped(r, {"11", "70", "81", "82", "83", "84"}, "no-seccomp");
}

TEST_P(Probe, ControlAllowUserns) {
  ProbeRun r = in_cordon({"allow-userns"}, {"--only", "42"});
  expect_escaped(r, {"42"}, "allow-userns");
}

TEST_P(Probe, ControlCapabilitiesWithoutFilter) {
  if (root()) {
    // bwrap keeps namespace-root's capabilities without --cap-drop; the filter goes too.
    ProbeRun r = in_cordon({"no-cap-drop", "allow-userns"}, {"--only", "43,44,45"});
    expect_escaped(r, {"43", "44", "45"}, "no-cap-drop + allow-userns");
  } else {
    // Unprivileged bwrap never grants capabilities: the control is a user namespace of our own
    // (with its own network namespace, where raw and packet sockets are allowed; nothing is sent).
    ProbeRun r = outside({"--only", "08,09,42,43,44,45"},
                         {"/usr/bin/unshare", "-r", "-m", "-u", "-n", "--propagation", "private"});
    expect_escaped(r, {"08", "09", "42", "43", "44", "45"}, "unshare -rmun");
  }
}

// 47 and the session's own budget: the session cgroup's limit files and the way out of it
// (the parent's cgroup.procs) are read-only inside; bound read-write they are open.
TEST_P(Probe, SessionCgroupCannotBeRaisedOrLeftAndControl) {
  auto site = root_budget_site("pids_max", 64);
  if (!site) GTEST_SKIP() << "no cgroup hierarchy here carries the pids controller";
  LaunchScope scope(*site, who_);  // delegated to the launching user: its files are theirs
  std::string config = base_->path() + "/pids.toml";
  // The default memory budget off: the probe's report then names the pids cgroup's files.
  write_file(config, read_file(config_) + "[limits]\npids_max = 64\nmemory_max_bytes = 0\n");
  auto launch = [&](const std::vector<std::string>& weaken) {
    RunOptions o;
    o.env = env();
    o.cwd = workspace_;
    return parse_probe(run(scope.wrap(cordon_argv(weaken, {"--only", "47"}, config), who_), o));
  };
  ProbeRun held = launch({});
  EXPECT_EQ(held.v("47"), "BLOCKED") << held.dump();
  EXPECT_NE(held.r("47").find(scope.dir() + "/cgroup.procs: EROFS"), std::string::npos) << held.dump();
  EXPECT_NE(held.r("47").find("/pids.max: EROFS"), std::string::npos) << held.dump();
  // Bound read-write, Landlock (the view grants /sys read-only) still refuses the writes.
  ProbeRun ruled = launch({"rw-bind:" + scope.dir()});
  EXPECT_EQ(ruled.v("47"), "BLOCKED") << ruled.dump();
  EXPECT_NE(ruled.r("47").find("/pids.max: EACCES"), std::string::npos) << ruled.dump();
  ProbeRun weakened = launch({"rw-bind:" + scope.dir(), "no-landlock"});
  expect_escaped(weakened, {"47"}, "the session cgroup's parent bound read-write");
  EXPECT_NE(weakened.r("47").find("/pids.max opened for writing"), std::string::npos) << weakened.dump();
}

// Without the pid namespace and without Landlock, the host target is signalled and listed.
TEST_P(Probe, ControlNoPidNamespace) {
  ProbeRun r = in_cordon({"no-unshare-pid", "no-landlock"}, {"--only", "60,64", "--target-pid", target_arg_});
  expect_escaped(r, {"60", "64"}, "no-unshare-pid");
}

// Without the pid namespace, Landlock's signal scope (ABI 6) still stops the signal to a
// process outside the session: EPERM. The listing (64) is the pid namespace's alone.
TEST_P(Probe, LandlocksSignalScopeHoldsWithoutAPidNamespace) {
  ProbeRun r = in_cordon({"no-unshare-pid"}, {"--only", "60,64", "--target-pid", target_arg_});
  EXPECT_EQ(r.v("60"), "BLOCKED") << r.dump();
  EXPECT_NE(r.r("60").find(": EPERM"), std::string::npos) << r.dump();
  EXPECT_EQ(r.v("64"), "ESCAPED") << r.dump();
}

// The host's /dev bound in, without Landlock: its device nodes open (root).
TEST_P(Probe, ControlHostDev) {
  if (!root()) GTEST_SKIP() << "host device nodes are root-only here: an unprivileged user opens none of them";
  ProbeRun r = in_cordon({"host-dev", "no-landlock"}, {"--only", "31"});
  expect_escaped(r, {"31"}, "host-dev");
}

// The host's /dev bound in, with Landlock: only the nodes bwrap's own /dev has are granted, so
// the host's disks and memory stay closed (EACCES).
TEST_P(Probe, LandlockHoldsTheHostsDevicesClosedUnderHostDev) {
  if (!root()) GTEST_SKIP() << "host device nodes are root-only here: an unprivileged user opens none of them";
  ProbeRun r = in_cordon({"host-dev"}, {"--only", "31"});
  EXPECT_EQ(r.v("31"), "BLOCKED") << r.dump();
  EXPECT_NE(r.r("31").find("EACCES"), std::string::npos) << r.dump();
}

TEST_P(Probe, ControlNoClearenv) {
  RunOptions o;
  o.env = env({{"GH_TOKEN", "ghp_planted" + tag_}});
  // Without Landlock too: pid 1 and the parent lie outside its domain, whose environ it refuses.
  ProbeRun r = in_cordon({"no-clearenv", "no-landlock"}, {"--only", "90"}, o);
  expect_escaped(r, {"90"}, "no-clearenv");
  EXPECT_NE(r.r("90").find("GH_TOKEN"), std::string::npos) << r.dump();
  EXPECT_EQ(r.raw.out.find("ghp_planted"), std::string::npos) << "a value was printed";
}

TEST_P(Probe, ControlNoHomeTmpfs) {
  ProbeRun r = in_cordon({"no-home-tmpfs"}, {"--only", "20,96", "--canary", home_canary_});
  expect_escaped(r, {"20", "96"}, "no-home-tmpfs");
  EXPECT_NE(r.r("20").find(home_canary_), std::string::npos) << r.dump();
  EXPECT_NE(r.r("96").find(home_ + "/.gitconfig"), std::string::npos) << r.dump();
}

TEST_P(Probe, ControlNoTmpTmpfs) {
  auto planted = plant_host_sockets();
  ProbeRun r = in_cordon({"no-tmp-tmpfs"}, {"--only", "21,91,93,94", "--canary", project_canary_});
  expect_escaped(r, {"21", "91", "93", "94"}, "no-tmp-tmpfs");
  EXPECT_NE(r.r("21").find(project_canary_), std::string::npos) << r.dump();
}

TEST_P(Probe, ControlNoRunTmpfs) {
  fs::create_directories("/run/cordon");  // the session directory must exist on the host (stays, empty)
  auto planted = plant_host_sockets();
  ProbeRun r = in_cordon({"no-run-tmpfs"}, {"--only", "92,95"});
  expect_escaped(r, {"92", "95"}, "no-run-tmpfs");
}

TEST_P(Probe, ControlWritableBindAroundTheWorkspace) {
  // One read-write bind over the directory holding the workspace, the other project and
  // cordon's staged libexec: writes, links and moves leave the workspace.
  if (!root()) {
    chown_tree(base_->path() + "/prefix/libexec", who_.uid, who_.gid);
    chown_tree(other_, who_.uid, who_.gid);
    ::chown(base_->path().c_str(), who_.uid, who_.gid);
  }
  ProbeRun r = in_cordon({"rw-bind:" + base_->path()}, {"--only", "21,22,23,24,25,29,30", "--canary", project_canary_});
  expect_escaped(r, {"21", "22", "23", "24", "25", "29", "30"}, "rw-bind around the workspace");
  EXPECT_EQ(markers_in(base_->path()), std::set<std::string>{});
  EXPECT_EQ(markers_in(other_), std::set<std::string>{});
}

#endif  // CORDON_TEST_HOOKS

TEST_P(Probe, ControlBareBwrapPassesInheritedDescriptors) {
  // A bare bwrap hands fd 7 (a directory it hides) to the command; cordon does not (see
  // FullSandboxNothingEscapes).
  const std::string libexec = base_->path() + "/prefix/libexec/cordon";
  std::vector<std::string> argv = {"/bin/sh",
                                   "-c",
                                   "exec 7<\"$0\"; exec \"$@\"",
                                   outside_->path(),
                                   "/usr/bin/bwrap",
                                   "--unshare-user",
                                   "--unshare-pid",
                                   "--ro-bind",
                                   "/",
                                   "/",
                                   "--dev",
                                   "/dev",
                                   "--proc",
                                   "/proc",
                                   "--tmpfs",
                                   "/tmp",
                                   "--tmpfs",
                                   "/var/tmp",
                                   "--ro-bind",
                                   libexec,
                                   libexec,
                                   "--",
                                   probe_,
                                   "--only",
                                   "28"};
  RunOptions o;
  o.env = env();
  o.as = who_;
  ProbeRun r = parse_probe(run(argv, o));
  expect_escaped(r, {"28"}, "bare bwrap with an inherited descriptor");
  EXPECT_NE(r.r("28").find("fd 7 is a directory outside this view"), std::string::npos) << r.dump();
}

// --- Positive controls: outside every sandbox ------------------------------------------

TEST_P(Probe, ControlOutsideTheSandbox) {
  auto planted = plant_host_sockets();
  plant_filecap_binary();
  // As the user: what any process of theirs can do. Root adds what only root can; root runs
  // neither 20 (it would read this machine's /etc/shadow) nor 90 (this machine's pid 1
  // environment): their root controls are the no-home-tmpfs and no-clearenv sandboxes.
  std::vector<std::string> ids = {"11", "21", "22", "23", "24", "25", "26", "27", "29", "30",
                                  "40", "41", "42", "60", "61", "62", "63", "64", "70", "81",
                                  "82", "83", "84", "91", "92", "93", "94", "95", "96"};
  if (root()) ids.insert(ids.end(), {"08", "09", "31", "43", "44", "45", "46", "47", "71", "80"});
  else ids.push_back("20");
  std::vector<std::string> args = inputs();
  args.insert(args.end(), {"--only", join(ids)});
  ProbeRun r = outside(args);
  expect_escaped(r, ids, "outside the sandbox");
  if (!root()) {
    EXPECT_NE(r.r("20").find(home_canary_), std::string::npos) << r.r("20");
  }
  EXPECT_NE(r.r("41").find("capecho-" + tag_), std::string::npos) << r.r("41");
  for (const std::string& secret : {"home-canary-" + tag_, "project-canary-" + tag_, "target-" + tag_})
    EXPECT_EQ(r.raw.out.find(secret), std::string::npos) << secret;
  EXPECT_EQ(markers_in(workspace_), std::set<std::string>{});
  EXPECT_EQ(markers_in(other_), std::set<std::string>{});

  // 90: a variable the parent holds and this process was started without.
  if (!root()) {
    RunOptions o;
    o.env = env({{"GH_TOKEN", "ghp_planted" + tag_}});
    ProbeRun e = outside({"--only", "90"}, {"/bin/sh", "-c", "/usr/bin/env -u GH_TOKEN \"$@\"; true", "sh"}, o);
    expect_escaped(e, {"90"}, "a parent holding a credential variable");
    EXPECT_EQ(e.raw.out.find("ghp_planted"), std::string::npos) << "a value was printed";
  }
}

INSTANTIATE_TEST_SUITE_P(As, Probe, ::testing::Values(Who::Root, Who::User), who_name);

// --- The network family, in a world the test builds ------------------------------------

NetWorld* world = nullptr;
std::string world_problem;
std::string empty_netns;

const char* const kWorldTargets =
    "tcp:10.1.2.3:8080,tcp:172.16.5.5:8080,tcp:192.168.7.7:8080,tcp:100.64.1.1:8080,tcp:169.254.169.254:8080,"
    "tcp:192.0.2.77:8080,udp:10.53.0.53:53,udp:10.1.2.3:8081,tcp:[fd00:beef::10]:8080";

class ProbeWorld : public ::testing::TestWithParam<Who> {
 protected:
  static void SetUpTestSuite() {
    world = open_suite_world(world_problem);
    if (!world) return;
    world->write_config("nojail", "[network]\negress_jail = false\n[sandbox]\nlandlock = \"off\"\n");
    world->write_config("nojail-landlock", "[network]\negress_jail = false\n");
    world->write_config("jail", "[network]\negress_jail = true\n");
    // A network namespace with nothing but loopback: what a jail isolates the sandbox into.
    empty_netns = "cjp-" + world->id;
    run_shell("ip netns add " + empty_netns + " && ip -n " + empty_netns + " link set lo up");
  }
  static void TearDownTestSuite() {
    if (!empty_netns.empty()) run_shell("ip netns del " + empty_netns);
    close_suite_world(world);
  }
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "building the network world needs root (CI runs as root)";
    ASSERT_EQ(world_problem, "");
    if (GetParam() == Who::User && !world->user_ready) GTEST_SKIP() << "no test user in the world";
    probe_ = world->dir + "/inst/libexec/cordon/cordon-probe";
    ASSERT_TRUE(path_exists(probe_)) << "cordon-probe was not built";
    abstract_name_ = "cordon-probe-host-" + world->id;
    // The fake host's own services: its listener answers on 127.0.0.1:8080 (networld.sh), and
    // an abstract socket listens in its network namespace.
    abstract_ = std::make_unique<AbstractListenerIn>("/run/netns/" + world->host_ns, abstract_name_);
    ASSERT_TRUE(abstract_->ok());
  }
  void TearDown() override { abstract_.reset(); }

  ProbeRun probe(const std::string& config, const std::string& args, const std::string& netns = "") const {
    NetWorld::RunOptions o;
    o.as = GetParam() == Who::Root ? As::Root : As::User;
    o.netns = netns;
    return parse_shell(world->cordon_run(world->dir + "/cfg/" + config + ".toml", probe_ + " " + args, o));
  }
  std::string with_targets() const {
    return std::string("--only 01,02,03,04,05,06,07,08,09,10,11 --net-targets ") + kWorldTargets +
           " --host-loopback-port 8080 --host-abstract " + abstract_name_;
  }

  std::string probe_, abstract_name_;
  std::unique_ptr<AbstractListenerIn> abstract_;
};

TEST_P(ProbeWorld, ControlWithoutTheJailEgressProbesReachTheWorld) {
  ProbeRun r = probe("nojail", with_targets());
  expect_escaped(r, {"01", "02", "03", "04", "05", "06", "07", "10"}, "no jail, in the fake host");
  EXPECT_NE(r.r("01").find("connected (\"hello 10.1.2.3\")"), std::string::npos) << r.dump();
  EXPECT_NE(r.r("06").find("tcp 127.0.0.1:8080: connected"), std::string::npos) << r.dump();
  EXPECT_NE(r.r("07").find("@" + abstract_name_ + ": connected"), std::string::npos) << r.dump();
  EXPECT_EQ(r.raw.exit_code, 3) << r.dump();
}

// The same host network, with Landlock's abstract-socket scope (ABI 6): the host's abstract
// listener refuses the connection (EPERM), while the TCP escapes (the network's part) remain.
TEST_P(ProbeWorld, LandlocksScopeKeepsTheHostsAbstractSocketsOutOfReach) {
  ProbeRun r = probe("nojail-landlock", with_targets());
  EXPECT_EQ(r.v("07"), "BLOCKED") << r.dump();
  EXPECT_NE(r.r("07").find("@" + abstract_name_ + ": EPERM (Landlock's abstract-socket scope"), std::string::npos)
      << r.dump();
  EXPECT_EQ(r.v("06"), "ESCAPED") << r.dump();
}

TEST_P(ProbeWorld, InAnEmptyNetworkNamespaceEveryEgressProbeIsBlocked) {
  ProbeRun r = probe("nojail", with_targets(), empty_netns);
  for (const char* id : {"01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11"})
    EXPECT_EQ(r.v(id), "BLOCKED") << r.r(id) << "\n" << r.dump();
  EXPECT_EQ(r.result, "RESULT: SANDBOX OK (0 checks + 11 probes)") << r.dump();
}

TEST_P(ProbeWorld, WithTheEgressJailEveryEgressProbeIsBlocked) {
  ProbeRun r = probe("jail", with_targets());
  if (r.raw.exit_code == 125) GTEST_SKIP() << "this build refuses the jail: " << r.raw.out;
  for (const char* id : {"01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11"})
    EXPECT_EQ(r.v(id), "BLOCKED") << r.r(id) << "\n" << r.dump();
  EXPECT_NE(r.r("01").find("tcp 10.1.2.3:8080: EINVAL (a blackhole route)"), std::string::npos) << r.dump();
  EXPECT_NE(r.r("06").find("tcp 127.0.0.1:8080: ECONNREFUSED"), std::string::npos) << r.dump();
  EXPECT_EQ(r.raw.exit_code, 0) << r.dump();

  // Without targets (as `cordon verify --deep` runs it) nothing is sent, and the route
  // lookups alone are refused locally.
  ProbeRun quiet = probe("jail", "--only 01,02,03,04,05,10");
  for (const char* id : {"01", "02", "03", "04", "05", "10"})
    EXPECT_EQ(quiet.v(id), "BLOCKED") << quiet.r(id) << "\n" << quiet.dump();
}

TEST_P(ProbeWorld, AHangIsInconclusiveNeverBlocked) {
  // Addresses on the fake host's subnet that nobody answers ARP for: the SYN never leaves and
  // the connect only fails after seconds. (Fresh addresses per case: a failed neighbour entry
  // would make the next attempt fail fast.)
  const int base = GetParam() == Who::Root ? 100 : 120;
  const std::string slow_target = "tcp:192.0.2." + std::to_string(base) + ":8080";
  const std::string kill_target = "tcp:192.0.2." + std::to_string(base + 1) + ":8080";
  // The probe's own 1.5 s bound reports it...
  ProbeRun slow = probe("nojail", "--only 04 --net-targets " + slow_target);
  EXPECT_EQ(slow.v("04"), "INCONCLUSIVE") << slow.dump();
  EXPECT_NE(slow.r("04").find("no answer within 1500 ms"), std::string::npos) << slow.dump();
  // ...and the runner's limit kills a probe that overruns it; the next probe runs normally.
  ProbeRun killed = probe("nojail", "--only 04,44 --timeout-ms 300 --net-targets " + kill_target);
  EXPECT_EQ(killed.v("04"), "INCONCLUSIVE") << killed.dump();
  EXPECT_NE(killed.r("04").find("no result within 300 ms: killed (a hang is never BLOCKED)"), std::string::npos)
      << killed.dump();
  EXPECT_EQ(killed.v("44"), "BLOCKED") << killed.dump();
  EXPECT_EQ(killed.raw.exit_code, 2) << killed.dump();
}

INSTANTIATE_TEST_SUITE_P(As, ProbeWorld, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
