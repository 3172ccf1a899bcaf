// cordon-battery against real sandboxes: the real cordon binary launches full and
// deliberately weakened sandboxes (test hooks, configuration, bare bwrap, network namespaces
// built here), the real battery runs inside, and each test asserts which checks FAIL and why.
// Every check has a weakening that makes it FAIL; the full sandbox passes every check except
// 24, which cannot hold without the egress jail (it shares the host's network namespace).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "cgroup_scope.h"
#include "common/build_config.h"
#include "common/error.h"
#include "common/intent.h"
#include "common/json_codec.h"
#include "launch_fixture.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

// ---- One battery run, parsed ----------------------------------------------------------

struct Row {
  std::string status, detail, property, mechanism;
};

struct BatteryRun {
  RunResult raw;
  Json doc;                         // the battery's document
  Json verify_doc;                  // under `cordon verify --json`: the whole document (cordon-verify), holding doc
  std::map<std::string, Row> rows;  // by id
  std::set<std::string> failed;

  bool fails(const std::string& id) const { return failed.count(id) != 0; }
  std::string detail(const std::string& id) const {
    auto it = rows.find(id);
    return it == rows.end() ? "<no row " + id + ">" : it->second.detail;
  }
  // Every row, for assertion messages.
  std::string dump() const {
    std::string out = "exit " + std::to_string(raw.exit_code) + "\n";
    for (const auto& [id, r] : rows) out += "  [" + r.status + "] " + id + " " + r.detail + "\n";
    return out + raw.err;
  }
};

BatteryRun parse_run(const RunResult& r) {
  BatteryRun b;
  b.raw = r;
  try {
    b.doc = Json::parse(r.out);  // strict: invalid UTF-8 or trailing text throws
  } catch (const std::exception& e) {
    ADD_FAILURE() << "battery output is not JSON (" << e.what() << "):\n" << r.out << "\nstderr:\n" << r.err;
    return b;
  }
  if (b.doc.is_object() && b.doc.value("format", "") == "cordon-verify") {
    b.verify_doc = b.doc;
    b.doc = b.verify_doc["battery"];
  }
  if (b.doc.is_object() && b.doc.contains("checks"))
    for (const auto& c : b.doc["checks"]) {
      auto field = [&](const char* k) { return c.contains(k) ? c[k].get<std::string>() : std::string(); };
      b.rows[field("id")] = Row{field("status"), field("detail"), field("property"), field("mechanism")};
      if (field("status") == "FAIL") b.failed.insert(field("id"));
    }
  return b;
}

std::string two_digits(int n) { return (n < 10 ? "0" : "") + std::to_string(n); }

std::string join(const std::set<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : ",") + id;
  return out;
}

// A listening abstract unix socket in the test's (the host's) network namespace.
class AbstractListener {
 public:
  explicit AbstractListener(const std::string& name) : name_(name) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path + 1, name.data(), name.size());
    socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd_, 4) != 0)
      throw std::runtime_error("abstract listener " + name);
  }
  ~AbstractListener() { ::close(fd_); }

 private:
  std::string name_;
  int fd_ = -1;
};

// A unix socket file at `path` (bound, then the descriptor closed: the file stays).
void make_socket_file(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("socket " + path);
  ::close(fd);
}

// Creates `path` (a file, with parents) on the host only if nothing is there; removes what
// it created. `present()` is false when the host already had the path (the test then skips
// rather than touch a real user file). With `shared_parents`, parent directories it had to
// create stay (other test processes may be using them at the same time): only `path` goes.
class Plant {
 public:
  Plant(const std::string& path, const std::string& content, uid_t uid, gid_t gid, bool directory = false,
        bool shared_parents = false) {
    if (path_exists(path)) return;
    std::string top = path;
    while (!path_exists(fs::path(top).parent_path().string())) {
      top = fs::path(top).parent_path().string();
      if (shared_parents) parents_.push_back(top);  // innermost first
    }
    top_ = shared_parents ? path : top;
    fs::create_directories(fs::path(path).parent_path());
    if (directory) fs::create_directories(path);
    else write_file(path, content, 0600);
    chown_tree(top_, uid, gid);
  }
  ~Plant() {
    std::error_code ec;
    if (!top_.empty()) fs::remove_all(top_, ec);
    for (const auto& dir : parents_) ::rmdir(dir.c_str());  // only while empty: others may use it
  }
  bool present() const { return !top_.empty(); }

 private:
  std::string top_;
  std::vector<std::string> parents_;
};

// Checks that FAIL in every `cordon --config FILE run` without the jail: 18 (the config was
// not read from the fixed path) and 24 (shared network namespace).
const std::set<std::string> kOverrideBaseline = {"18", "24"};

std::set<std::string> with(std::set<std::string> base, std::initializer_list<std::string> more) {
  base.insert(more.begin(), more.end());
  return base;
}

class Battery : public LaunchFixture {
 protected:
  void SetUp() override {
    stage("/tmp/cordon-bt-");
    if (IsSkipped() || HasFatalFailure()) return;
    outside_ = std::make_unique<TempDir>("/var/tmp/cordon-bt-");
    battery_ = base_->path() + "/prefix/libexec/cordon/cordon-battery";
    ASSERT_TRUE(path_exists(battery_)) << "cordon-battery was not built";
    write_file(config_, kNoJail);
    make_workspace();
    chown_tree(outside_->path(), who_.uid, who_.gid);
    tag_ = std::to_string(::getpid());
  }

  RunOptions as_who(RunOptions o = {}) {
    if (o.env.empty()) o.env = base_env(who_);
    o.as = who_;
    o.cwd = workspace_;
    return o;
  }

  std::vector<std::string> cordon_run(const std::vector<std::string>& cordon_args,
                                      const std::vector<std::string>& battery_args, const std::string& config,
                                      const std::string& cordon = "", const std::string& workspace = "") {
    std::vector<std::string> argv = {cordon.empty() ? cordon_ : cordon};
    if (!config.empty()) argv.insert(argv.end(), {"--config", config});
    argv.insert(argv.end(), {"run", "--workspace", workspace.empty() ? workspace_ : workspace});
    argv.insert(argv.end(), cordon_args.begin(), cordon_args.end());
    argv.push_back("--");
    argv.push_back(cordon.empty()
                       ? battery_
                       : fs::path(cordon).parent_path().parent_path().string() + "/libexec/cordon/cordon-battery");
    argv.insert(argv.end(), battery_args.begin(), battery_args.end());
    return argv;
  }

  // The battery inside `cordon --config CONFIG run [cordon_args] -- battery --json`.
  BatteryRun in_cordon(const std::vector<std::string>& cordon_args = {}, RunOptions o = {},
                       const std::string& config = "") {
    return parse_run(run(cordon_run(cordon_args, {"--json"}, config.empty() ? config_ : config), as_who(o)));
  }

  // The battery inside `cordon run` reading `config_text` from the fixed configuration path.
  BatteryRun in_cordon_fixed(const std::string& config_text, const std::vector<std::string>& cordon_args = {}) {
    return parse_run(
        run_with_fixed_config(build::kConfigPath, config_text, cordon_run(cordon_args, {"--json"}, ""), as_who()));
  }

  std::string write_config(const std::string& name, const std::string& text) {
    std::string path = base_->path() + "/" + name;
    write_file(path, text);
    return path;
  }

  // The battery exits with its FAIL count; `cordon verify` (`by_verify`) with 1 for any FAIL.
  void expect_failed(const BatteryRun& r, const std::set<std::string>& expected, bool by_verify = false) {
    EXPECT_EQ(join(r.failed), join(expected)) << r.dump();
    int count = static_cast<int>(r.failed.size());
    EXPECT_EQ(r.raw.exit_code, by_verify ? (count == 0 ? kExitSuccess : kExitChecksFailed) : count) << r.dump();
  }

  static constexpr const char* kNoJail = "[network]\negress_jail = false\n";

  bool root() const { return GetParam() == Who::Root; }

  std::unique_ptr<TempDir> outside_;
  std::string battery_, tag_;
};

// ---- The full sandbox -------------------------------------------------------------------

TEST_P(Battery, FullSandboxPassesEveryCheckButAbstractSockets) {
  BatteryRun r = in_cordon_fixed(kNoJail);
  expect_failed(r, {"24"});
  EXPECT_NE(r.detail("24").find("shares the launcher's network namespace"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("19").find("jail disabled"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("20").find("jail disabled"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("18").find(build::kConfigPath), std::string::npos) << r.dump();
  ASSERT_TRUE(r.doc.contains("session_file"));
  EXPECT_EQ(r.doc["session_file"], kSessionFilePath);
  EXPECT_EQ(r.doc["profile"], "generic");
  EXPECT_EQ(r.rows.size(), 34u);
  EXPECT_EQ(r.rows["33"].status, "PASS") << r.dump();  // the default: Landlock, measured
  // The budgets every session has: no core dumps, the writable tmpfs mounts capped; and the
  // default pids and memory budgets where a cgroup can hold them (root here), read back.
  EXPECT_EQ(r.detail("27").rfind("tmpfs_size_bytes=1073741824 (/tmp, $HOME, /var/tmp), core=0", 0), 0u) << r.dump();
  if (who_.uid == 0 && root_budget_site("pids_max", 4096)) {
    EXPECT_NE(r.detail("27").find("pids_max=4096 (/sys/fs/cgroup/"), std::string::npos) << r.dump();
    EXPECT_NE(r.detail("27").find("memory_max_bytes=8589934592 (/sys/fs/cgroup/"), std::string::npos) << r.dump();
    EXPECT_EQ(r.rows["27"].status, "PASS") << r.dump();
  } else {  // the defaults could not be placed: named in a WARN, never a plain PASS
    EXPECT_EQ(r.rows["27"].status, "WARN") << r.dump();
    EXPECT_NE(r.detail("27").find("(cordon doctor names the fix)"), std::string::npos) << r.dump();
    EXPECT_EQ(r.detail("27").find("pids_max="), std::string::npos) << r.dump();
    EXPECT_NE(r.detail("27").find("; NOT ENFORCED here: memory_max_bytes (default; "), std::string::npos) << r.dump();
  }
  // Nothing fell back: the session file was there.
  for (const auto& [id, row] : r.rows) EXPECT_EQ(row.detail.find("no session file"), std::string::npos) << id;
}

TEST_P(Battery, ConfigOverrideFails18NamingThePath) {
  BatteryRun r = in_cordon();
  expect_failed(r, kOverrideBaseline);
  EXPECT_NE(r.detail("18").find("read its configuration from " + config_), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("18").find("--config override"), std::string::npos) << r.dump();
}

// ---- cordon verify's exit status ------------------------------------------------------

// Two or more FAILs exit 1, never the count: a count of 2 would read as a configuration error
// (and 125 as a refused launch). The count stays in the report and in the last-verify record.
TEST_P(Battery, VerifyExitsOneHoweverManyChecksFail) {
  // The test process's private state directory (CORDON_TEST_STATE_DIR), for root too.
  RunOptions o;
  o.env = base_env(who_);
  BatteryRun r = parse_run(run({cordon_, "--config", config_, "verify", "--workspace", workspace_, "--json",
                                "--test-weaken", "no-unshare-ipc", "--test-weaken", "no-unshare-uts"},
                               as_who(o)));
  ASSERT_GE(r.failed.size(), 3u) << r.dump();  // 18 and 24 (--config, no jail) and the weakenings
  expect_failed(r, with(kOverrideBaseline, {"08", "09"}), true);
  EXPECT_EQ(r.doc["fail"], static_cast<int>(r.failed.size())) << r.dump();
  std::string last = read_file(sessions_dir_of(who_) + "/../last-verify");
  EXPECT_EQ(last.rfind("FAIL (" + std::to_string(r.failed.size()) + ") at ", 0), 0u) << last;
  // The whole of stdout is the one document verify prints; its verdict is the exit status.
  EXPECT_EQ(r.verify_doc["deep"], false) << r.raw.out;
  EXPECT_TRUE(r.verify_doc["probes"].is_null()) << r.raw.out;
  EXPECT_EQ(r.verify_doc["verdict"], "FAIL") << r.raw.out;
  EXPECT_EQ(r.verify_doc["exit_code"], kExitChecksFailed) << r.raw.out;
}

// `verify --deep --json` printed two documents, the battery's and then the probes' (or one
// and a message about the probes): stdout is now one document whatever happened. Here the
// battery FAILs (18 and 24: --config, no jail), so the probes do not run and their member
// is null.
TEST_P(Battery, VerifyDeepJsonIsOneDocumentWhenTheBatteryFails) {
  RunOptions o;
  o.env = base_env(who_);
  RunResult r = run({cordon_, "--config", config_, "verify", "--deep", "--workspace", workspace_, "--json"}, as_who(o));
  EXPECT_EQ(r.exit_code, kExitChecksFailed) << r.out << r.err;
  Json doc;
  try {
    doc = Json::parse(r.out);  // strict: a second document after the first throws
  } catch (const std::exception& e) {
    FAIL() << "stdout is not one JSON document (" << e.what() << "):\n" << r.out << "\nstderr:\n" << r.err;
  }
  EXPECT_EQ(doc["format"], "cordon-verify");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["deep"], true);
  EXPECT_EQ(doc["battery"]["format"], "cordon-battery");
  EXPECT_EQ(doc["battery"]["fail"], 2) << doc["battery"].dump();
  EXPECT_TRUE(doc["probes"].is_null()) << r.out;
  EXPECT_EQ(doc["verdict"], "FAIL");
  EXPECT_EQ(doc["exit_code"], kExitChecksFailed);
  EXPECT_NE(r.err.find("probes not run"), std::string::npos) << r.err;
}

// Without -v, verify prints what needs a look: the FAIL rows and the summary, no PASS row;
// -v prints every row.
TEST_P(Battery, VerifyPrintsTheFailuresAndTheSummaryUnlessVerbose) {
  RunOptions o;
  o.env = base_env(who_);
  std::vector<std::string> argv = {cordon_, "--config", config_, "verify", "--workspace", workspace_};
  RunResult brief = run(argv, as_who(o));
  EXPECT_EQ(brief.exit_code, kExitChecksFailed) << brief.out << brief.err;
  EXPECT_NE(brief.out.find("cordon-battery: 34 checks (FAIL and WARN rows only; cordon verify -v shows every row)\n"),
            std::string::npos)
      << brief.out;
  EXPECT_NE(brief.out.find("  [FAIL] 18 "), std::string::npos) << brief.out;  // the --config override
  EXPECT_NE(brief.out.find("  [FAIL] 24 "), std::string::npos) << brief.out;  // no jail
  EXPECT_EQ(brief.out.find("[PASS]"), std::string::npos) << brief.out;
  // 27 WARNs where the default budgets cannot be placed (an ordinary user on this host).
  EXPECT_TRUE(std::regex_search(brief.out, std::regex("  Summary: (32 PASS|31 PASS / 1 WARN) / 2 FAIL\n")))
      << brief.out;
  argv.emplace_back("-v");
  RunResult every = run(argv, as_who(o));
  EXPECT_EQ(every.exit_code, kExitChecksFailed) << every.out << every.err;
  EXPECT_NE(every.out.find("cordon-battery: 34 checks\n"), std::string::npos) << every.out;
  EXPECT_NE(every.out.find("  [PASS] 01 "), std::string::npos) << every.out;
  EXPECT_NE(every.out.find("  [FAIL] 18 "), std::string::npos) << every.out;
  EXPECT_TRUE(std::regex_search(every.out, std::regex("  Summary: (32 PASS|31 PASS / 1 WARN) / 2 FAIL\n")))
      << every.out;
}

// Invalid configuration or usage: 2 under verify; a sandbox that cannot be launched: 125.
TEST_P(Battery, VerifyRefusalsKeepTheirOwnStatus) {
  std::string bad = write_config("bad.toml", "[network]\negress_jail = \"no\"\n");
  RunResult invalid = run({cordon_, "--config", bad, "verify", "--workspace", workspace_}, as_who());
  EXPECT_EQ(invalid.exit_code, kExitConfigError) << invalid.err;
  EXPECT_NE(invalid.err.find(bad + ":2:15: network.egress_jail"), std::string::npos) << invalid.err;
  RunResult usage = run({cordon_, "--config", config_, "verify", "--frobnicate"}, as_who());
  EXPECT_EQ(usage.exit_code, kExitConfigError) << usage.err;
  RunResult missing = run({cordon_, "--config", config_, "verify", "--workspace", "/nonexistent/ws"}, as_who());
  EXPECT_EQ(missing.exit_code, kExitLaunchRefused) << missing.err;
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;
}

// ---- One weakening per check ----------------------------------------------------------

TEST_P(Battery, Check01FailsWithoutTheSentinel) {
  BatteryRun r = in_cordon({"--test-weaken", "no-sentinel"});
  expect_failed(r, with(kOverrideBaseline, {"01"}));
  EXPECT_NE(r.detail("01").find("IS_SANDBOX is not set"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check02FailsOutsideAnySandbox) {
  // bwrap always sets no_new_privs: the only way to lose it is not to be in bwrap at all.
  RunOptions o = as_who();
  BatteryRun r = parse_run(run({battery_, "--json", "--only", "02"}, o));
  expect_failed(r, {"02"});
  EXPECT_NE(r.detail("02").find("NoNewPrivs: 0"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check03FailsForAHostDirectoryInHome) {
  Plant canary(who_.home + "/.ssh/cordon-bt-canary-" + tag_, "canary\n", who_.uid, who_.gid);
  BatteryRun r = in_cordon({"--test-weaken", "bind:" + who_.home + "/.ssh"});
  expect_failed(r, with(kOverrideBaseline, {"03"}));
  EXPECT_NE(r.detail("03").find(".ssh"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("03").find("outside profile generic's allow-list"), std::string::npos) << r.dump();
}

// The README's own layout, a workspace under $HOME (~/src/app), verifies clean: bwrap makes its
// parents in the home's tmpfs, and check 03 allows them while they hold only the way down. A
// host directory bound beside the way is still seen.
TEST_P(Battery, Check03PassesForAWorkspaceUnderHomeAndSeesAnEntryBesideIt) {
  const std::string src = who_.home + "/cordon-bt-src-" + tag_;
  Plant app(src + "/app/README", "x\n", who_.uid, who_.gid);
  Plant other(src + "/other/notes", "host data\n", who_.uid, who_.gid);
  ASSERT_TRUE(app.present() && other.present());
  auto launch = [&](const std::vector<std::string>& cordon_args) {
    std::vector<std::string> argv = {cordon_, "--config", config_, "run", "--workspace", src + "/app"};
    argv.insert(argv.end(), cordon_args.begin(), cordon_args.end());
    argv.insert(argv.end(), {"--", battery_, "--json"});
    RunOptions o = as_who();
    o.cwd = src + "/app";
    return parse_run(run(argv, o));
  };
  BatteryRun clean = launch({});
  expect_failed(clean, kOverrideBaseline);
  EXPECT_EQ(clean.detail("03"), "profile generic") << clean.dump();
  BatteryRun beside = launch({"--test-weaken", "bind:" + src + "/other"});
  expect_failed(beside, with(kOverrideBaseline, {"03"}));
  EXPECT_NE(beside.detail("03").find("cordon-bt-src-" + tag_ + "/other (beside the way to the workspace)"),
            std::string::npos)
      << beside.dump();
}

TEST_P(Battery, Check03FailsForAnotherAgentsConfig) {
  Plant codex(who_.home + "/.codex/config.toml", "model = \"x\"\n", who_.uid, who_.gid);
  if (!codex.present()) GTEST_SKIP() << who_.home << "/.codex exists on this host; not touching it";
  std::string config = write_config("keep-codex.toml", std::string(kNoJail) + "[home]\nkeep = [\".codex\"]\n");
  BatteryRun r = in_cordon({}, {}, config);
  expect_failed(r, with(kOverrideBaseline, {"03"}));
  EXPECT_NE(r.detail("03").find("another agent's config is visible: .codex (codex)"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check03FailsWithoutTheHomeTmpfs) {
  BatteryRun r = in_cordon({"--test-weaken", "no-home-tmpfs"});
  EXPECT_TRUE(r.fails("03")) << r.dump();
  EXPECT_NE(r.detail("03").find("is not a fresh tmpfs"), std::string::npos) << r.dump();
  // The host home is visible read-only; what else fails depends on what the host keeps there.
  for (const char* id : {"01", "04", "07", "10", "16", "17", "22"}) EXPECT_FALSE(r.fails(id)) << id << r.dump();
}

TEST_P(Battery, Check04FailsWithoutClearenv) {
  RunOptions o;
  o.env = base_env(who_, {{"GH_TOKEN", "ghp_planted"}, {"AWS_SECRET_ACCESS_KEY", "aws-planted"}});
  BatteryRun r = in_cordon({"--test-weaken", "no-clearenv"}, o);
  expect_failed(r, with(kOverrideBaseline, {"04"}));
  EXPECT_NE(r.detail("04").find("AWS_SECRET_ACCESS_KEY, GH_TOKEN"), std::string::npos) << r.dump();
  EXPECT_EQ(r.raw.out.find("planted"), std::string::npos) << "the battery printed a credential value";
  // Control: the same environment through the full sandbox leaves nothing behind.
  BatteryRun full = in_cordon({}, o);
  EXPECT_FALSE(full.fails("04")) << full.dump();
}

TEST_P(Battery, Check05FailsWhenDisplayIsAllowed) {
  std::string config = write_config("display.toml", std::string(kNoJail) + "[environment]\nallow = [\"DISPLAY\"]\n");
  RunOptions o;
  o.env = base_env(who_, {{"DISPLAY", ":0"}});
  BatteryRun r = in_cordon({}, o, config);
  expect_failed(r, with(kOverrideBaseline, {"05"}));
  EXPECT_NE(r.detail("05").find("DISPLAY=:0"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check06FailsWithoutCapDropAsRoot) {
  BatteryRun r = in_cordon({"--test-weaken", "no-cap-drop"});
  if (root()) {
    expect_failed(r, with(kOverrideBaseline, {"06"}));
    EXPECT_NE(r.detail("06").find("capabilities effective"), std::string::npos) << r.dump();
  } else {
    // bwrap run by an unprivileged user drops every capability at exec by itself.
    expect_failed(r, kOverrideBaseline);
  }
}

TEST_P(Battery, Check07And25FailWithoutAPidNamespace) {
  BatteryRun r = in_cordon({"--test-weaken", "no-unshare-pid"});
  expect_failed(r, with(kOverrideBaseline, {"07", "25"}));
  EXPECT_NE(r.detail("07").find("same pid namespace as the launcher"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("25").find("is the host's init"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check07And25FailWithTheHostProc) {
  std::string config = write_config("hostproc.toml", std::string(kNoJail) + "[filesystem]\nproc = \"host-ro\"\n");
  BatteryRun r = in_cordon({}, {}, config);
  expect_failed(r, with(kOverrideBaseline, {"07", "25"}));
  EXPECT_NE(r.detail("07").find("the host's /proc is bound in"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("25").find("is the host's init"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check08FailsWithoutAnIpcNamespace) {
  BatteryRun r = in_cordon({"--test-weaken", "no-unshare-ipc"});
  expect_failed(r, with(kOverrideBaseline, {"08"}));
  EXPECT_NE(r.detail("08").find("same ipc namespace as the launcher"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check09FailsWithoutAUtsNamespace) {
  BatteryRun r = in_cordon({"--test-weaken", "no-unshare-uts"});
  expect_failed(r, with(kOverrideBaseline, {"09"}));
  EXPECT_NE(r.detail("09").find("same uts namespace as the launcher"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check10FailsWithTheHostDev) {
  BatteryRun r = in_cordon({"--test-weaken", "host-dev"});
  EXPECT_TRUE(r.fails("10")) << r.dump();
  EXPECT_NE(r.detail("10").find("host's devtmpfs"), std::string::npos) << r.dump();
  // 17 also fails where the host's /dev carries a writable tmpfs (/dev/shm). With Landlock (the
  // default), 33 cannot measure (no sentinel is bound into the host's /dev) and 22 cannot open
  // a pty: the host's /dev/ptmx is a device node no rule grants. Nothing else.
  std::set<std::string> others = r.failed;
  for (const char* id : {"10", "17", "22"}) others.erase(id);
  EXPECT_TRUE(r.fails("33")) << r.dump();
  EXPECT_NE(r.detail("33").find("sentinel /dev/.cordon-landlock is missing"), std::string::npos) << r.dump();
  others.erase("33");
  EXPECT_EQ(join(others), join(kOverrideBaseline)) << r.dump();
}

TEST_P(Battery, Check11FailsWithTheHostTmp) {
  std::string socket = "/tmp/vscode-ipc-cordon-bt-" + tag_ + ".sock";
  make_socket_file(socket);
  struct Remove {
    std::string p;
    ~Remove() { ::unlink(p.c_str()); }
  } cleanup{socket};
  BatteryRun full = in_cordon();
  EXPECT_FALSE(full.fails("11")) << full.dump();  // control: the tmpfs hides it
  BatteryRun r = in_cordon({"--test-weaken", "no-tmp-tmpfs"});
  expect_failed(r, with(kOverrideBaseline, {"11"}));
  EXPECT_NE(r.detail("11").find("not its own tmpfs"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("11").find("vscode-ipc-cordon-bt-" + tag_ + ".sock"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check12And13FailWithTheHostRun) {
  // no-run-tmpfs needs the session directory to exist on the host (it stays: an empty dir).
  fs::create_directories(kSessionDir);
  Plant secret("/run/secrets/cordon-bt-canary-" + tag_, "canary\n", 0, 0, false, true);
  Plant runtime("/run/user/cordon-bt-" + tag_, "", 0, 0, true, true);
  BatteryRun r = in_cordon({"--test-weaken", "no-run-tmpfs"});
  expect_failed(r, with(kOverrideBaseline, {"12", "13"}));
  EXPECT_NE(r.detail("12").find("cordon-bt-" + tag_), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("13").find("cordon-bt-canary-" + tag_), std::string::npos) << r.dump();
}

TEST_P(Battery, Check12FailsForTheHostRunUserBoundIn) {
  Plant runtime("/run/user/cordon-bt-" + tag_, "", 0, 0, true, true);
  BatteryRun r = in_cordon({"--test-weaken", "bind:/run/user"});
  expect_failed(r, with(kOverrideBaseline, {"12"}));
  EXPECT_NE(r.detail("12").find("/run/user holds"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check13FailsForTheHostSecretsBoundIn) {
  Plant secret("/run/secrets/cordon-bt-canary-" + tag_, "canary\n", 0, 0, false, true);
  BatteryRun full = in_cordon();
  EXPECT_FALSE(full.fails("13")) << full.dump();  // control: masked by a tmpfs
  EXPECT_NE(full.detail("13").find("empty tmpfs"), std::string::npos) << full.dump();
  BatteryRun r = in_cordon({"--test-weaken", "bind:/run/secrets"});
  expect_failed(r, with(kOverrideBaseline, {"13"}));
  EXPECT_NE(r.detail("13").find("cordon-bt-canary-" + tag_), std::string::npos) << r.dump();
}

TEST_P(Battery, Check14FailsForAnUnmaskedNetrc) {
  Plant netrc(who_.home + "/.netrc", "machine example.invalid login x password canary\n", who_.uid, who_.gid);
  if (!netrc.present()) GTEST_SKIP() << who_.home << "/.netrc exists on this host; not touching it";
  std::string config = write_config("netrc.toml", std::string(kNoJail) + "[home]\nkeep = [\".netrc\"]\n");
  BatteryRun masked = in_cordon({}, {}, config);
  EXPECT_FALSE(masked.fails("14")) << masked.dump();  // control: the mask wins over the keep
  BatteryRun r = in_cordon({"--test-weaken", "no-masks"}, {}, config);
  // Without masks root also reads /etc/shadow (26); the unprivileged user cannot.
  // As root the unmasked /etc/shadow is also a root-only file readable (check 30).
  expect_failed(r, root() ? with(kOverrideBaseline, {"14", "26", "30"}) : with(kOverrideBaseline, {"14"}));
  EXPECT_NE(r.detail("14").find("the host's file is visible"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check15FailsForAnUnmaskedXauthority) {
  Plant xauth(who_.home + "/.Xauthority", "cookie-canary\n", who_.uid, who_.gid);
  if (!xauth.present()) GTEST_SKIP() << who_.home << "/.Xauthority exists on this host; not touching it";
  std::string config = write_config("xauth.toml", std::string(kNoJail) + "[home]\nkeep = [\".Xauthority\"]\n");
  BatteryRun r = in_cordon({"--test-weaken", "no-masks"}, {}, config);
  expect_failed(r, root() ? with(kOverrideBaseline, {"15", "26", "30"}) : with(kOverrideBaseline, {"15"}));
  EXPECT_NE(r.detail("15").find(".Xauthority holds"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check16FailsWithoutTheCuratedGitConfig) {
  BatteryRun r = in_cordon({"--test-weaken", "no-gitconfig"});
  expect_failed(r, with(kOverrideBaseline, {"16"}));
  EXPECT_NE(r.detail("16").find("GIT_CONFIG_GLOBAL is not set"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check17FailsForAnExtraReadWriteBind) {
  BatteryRun r = in_cordon({"--test-weaken", "rw-bind:" + outside_->path()});
  expect_failed(r, with(kOverrideBaseline, {"17"}));
  EXPECT_NE(r.detail("17").find(outside_->path()), std::string::npos) << r.dump();
  // Control: a read-only bind of the same path is not part of the writable set.
  BatteryRun ro = in_cordon({"--test-weaken", "bind:" + outside_->path()});
  EXPECT_FALSE(ro.fails("17")) << ro.dump();
}

// The promise runs both ways: the workspace itself must be writable. A read-only bind over it
// (what root launching in another user's tree, or a read-only devcontainer mount, amounts to)
// is a FAIL that says the agent could not edit the project; the launch refuses those cases
// before they get here (LaunchRefusals.AWorkspaceTheSessionCouldNotWrite...).
TEST_P(Battery, Check17FailsForAWorkspaceTheSessionCannotWrite) {
  BatteryRun r = in_cordon({"--test-weaken", "bind:" + workspace_});
  expect_failed(r, with(kOverrideBaseline, {"17"}));
  EXPECT_NE(r.detail("17").find("the workspace " + workspace_ + " is not writable here (Read-only file system"),
            std::string::npos)
      << r.dump();
  EXPECT_NE(r.detail("17").find("the agent could not edit the project"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check18FailsForAConfigInTheWorkspace) {
  std::string config = workspace_ + "/cordon.toml";
  write_file(config, kNoJail);
  chown_tree(config, who_.uid, who_.gid);
  BatteryRun r = in_cordon({}, {}, config);
  expect_failed(r, kOverrideBaseline);
  EXPECT_NE(r.detail("18").find("configuration file " + config + " is writable here"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check18FailsForWritableHelpers) {
  // The helpers are bound read-only (control); made writable by a weakening, check 18 names them.
  const std::string helpers = base_->path() + "/prefix/libexec/cordon";
  chown_tree(helpers, who_.uid, who_.gid);  // so that write access is the bind's alone to decide
  BatteryRun bound = in_cordon();
  EXPECT_EQ(bound.detail("18").find("helper directory"), std::string::npos) << bound.dump();
  BatteryRun r = in_cordon({"--test-weaken", "rw-bind:" + helpers});
  // 17: the extra writable path itself; 32: the battery runs from it, a replaceable executable.
  expect_failed(r, with(kOverrideBaseline, {"17", "32"}));
  EXPECT_NE(r.detail("18").find("helper directory " + helpers + " is writable"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("32").find("mapped executable " + helpers + "/cordon-battery"), std::string::npos) << r.dump();
}

TEST_P(Battery, AWorkspaceHoldingCordonItselfIsRefused) {
  // cordon installed inside the workspace: the sandbox could replace the launcher it runs next.
  std::string cordon = stage_install(workspace_ + "/prefix");
  chown_tree(workspace_, who_.uid, who_.gid);
  RunResult r = run(cordon_run({}, {"--json"}, config_, cordon), as_who());
  EXPECT_EQ(r.exit_code, kExitLaunchRefused) << r.out << r.err;
  EXPECT_NE(r.err.find("contains cordon's helper directory"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");  // the battery never ran
}

// A workspace the session could not write is refused at launch, with a fix that names the
// owner: root in a tree an ordinary user owns (no capability inside, so no DAC override), and
// an ordinary user in root's tree. Following the fix (launching as the owner) works.
TEST_P(Battery, AWorkspaceTheSessionCouldNotWriteIsRefusedWithTheOwner) {
  std::optional<Identity> other = root() ? unprivileged_identity() : std::optional<Identity>(root_identity());
  ASSERT_TRUE(other);
  const std::string project = workspace_ + "/theirs";
  ASSERT_EQ(::mkdir(project.c_str(), 0755), 0);
  ASSERT_EQ(::chown(project.c_str(), other->uid, other->gid), 0);
  ASSERT_EQ(::chmod(project.c_str(), 0755), 0);
  RunResult r = run(cordon_run({}, {"--only", "17"}, config_, "", project), as_who());
  EXPECT_EQ(r.exit_code, kExitLaunchRefused) << r.out << r.err;
  EXPECT_NE(r.err.find("workspace " + project + " belongs to " + other->name + " (uid " + std::to_string(other->uid) +
                       "), mode 0755: the session runs as uid " + std::to_string(who_.uid) +
                       " without capabilities and could not write it (Permission denied)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(root() ? "sudo -u " + other->name + " cordon run" : "launch cordon as the user who owns it"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
  // Control: the same directory, writable for the session's uid, launches and 17 passes.
  ASSERT_EQ(::chown(project.c_str(), who_.uid, who_.gid), 0);
  RunResult ok = run(cordon_run({}, {"--only", "17"}, config_, "", project), as_who());
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
}

// ---- 19 / 20: route tables built in a private network namespace -------------------------

class RouteWorld {
 public:
  // `routes`: shell lines run after the link is configured.
  static std::string script(const std::string& routes) {
    return "set -e\n"
           "ip link set lo up\n"
           "ip link add cb0 type veth peer name cb1\n"
           "ip addr add 192.0.2.2/24 dev cb0\n"
           "ip link set cb0 up\n"
           "ip link set cb1 up\n"
           "ip route del 192.0.2.0/24 dev cb0\n"
           "ip route add default via 192.0.2.1 dev cb0 onlink\n" +
           routes + "exec \"$@\"\n";
  }
  static std::string blackholes(const std::vector<std::string>& prefixes) {
    std::string out;
    for (const auto& p : prefixes) out += "ip route add blackhole " + p + "\n";
    return out;
  }
};

const std::vector<std::string> kJailBlackholes = {"10.0.0.0/8",    "172.16.0.0/12",    "192.168.0.0/16",
                                                  "100.64.0.0/10", "168.63.129.16/32", "192.0.2.0/24"};

class BatteryJail : public Battery {
 protected:
  std::string session_file(const std::vector<std::string>& blackholes, bool jail = true) {
    SessionIntent s;
    s.agent.name = "generic";
    s.home.path = who_.home;
    s.network.mode = jail ? NetworkMode::EgressJail : NetworkMode::Host;
    s.network.blackholes = blackholes;
    s.network.unreachable = {"169.254.0.0/16"};
    s.network.allow = {"198.51.100.53/32"};
    s.network.gateway = "192.0.2.1";
    s.network.dns_forward = "198.51.100.53";
    std::string path = base_->path() + "/session-" + std::to_string(++count_);
    write_file(path, serialize_session(s), 0644);
    return path;
  }

  // The battery (checks 19 and 20) in a fresh network namespace whose routes `routes` sets up.
  BatteryRun in_world(const std::string& routes, const std::string& session, bool network = true) {
    std::vector<std::string> argv = {"/usr/bin/unshare",
                                     root() ? "-n" : "-rn",
                                     "/bin/sh",
                                     "-c",
                                     network ? RouteWorld::script(routes) : "ip link set lo up; exec \"$@\"",
                                     "sh",
                                     battery_,
                                     "--json",
                                     "--only",
                                     "19,20"};
    if (!session.empty()) argv.insert(argv.end(), {"--session", session});
    RunOptions o = as_who();
    return parse_run(run(argv, o));
  }

  int count_ = 0;
};

TEST_P(BatteryJail, FullJailRoutesPass) {
  BatteryRun r = in_world(RouteWorld::blackholes(kJailBlackholes) + "ip route add unreachable 169.254.0.0/16\n",
                          session_file(kJailBlackholes));
  expect_failed(r, {});
  EXPECT_NE(r.detail("19").find("default via 192.0.2.1"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("20").find("1.1.1.1 forwardable via 192.0.2.1"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("20").find("gateway itself blackhole"), std::string::npos) << r.dump();
}

TEST_P(BatteryJail, PartiallyProgrammedJailFails) {
  std::vector<std::string> partial(kJailBlackholes.begin() + 1, kJailBlackholes.end());  // no 10/8
  BatteryRun r = in_world(RouteWorld::blackholes(partial) + "ip route add unreachable 169.254.0.0/16\n",
                          session_file(kJailBlackholes));
  expect_failed(r, {"19", "20"});
  EXPECT_NE(r.detail("19").find("missing: blackhole 10.0.0.0/8"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("19").find("partially programmed"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("20").find("10.1.2.3 forwardable via 192.0.2.1"), std::string::npos) << r.dump();
}

TEST_P(BatteryJail, MissingLinkLocalUnreachableFails) {
  BatteryRun r = in_world(RouteWorld::blackholes(kJailBlackholes), session_file(kJailBlackholes));
  expect_failed(r, {"19", "20"});
  EXPECT_NE(r.detail("19").find("unreachable 169.254.0.0/16"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("20").find("169.254.169.254 forwardable"), std::string::npos) << r.dump();
}

TEST_P(BatteryJail, SessionIntentMissingAFixedRangeStillFails) {
  // The launcher's intent itself lacks CGNAT: the battery holds it to the fixed set anyway.
  std::vector<std::string> intent = kJailBlackholes;
  intent.erase(std::find(intent.begin(), intent.end(), "100.64.0.0/10"));
  BatteryRun r = in_world(RouteWorld::blackholes(intent) + "ip route add unreachable 169.254.0.0/16\n",
                          session_file(intent));
  expect_failed(r, {"19", "20"});
  EXPECT_NE(r.detail("19").find("blackhole 100.64.0.0/10"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("20").find("100.64.1.1 forwardable"), std::string::npos) << r.dump();
}

TEST_P(BatteryJail, DisabledJailPassesWithANote) {
  // Same unconfined routes, but the launcher says the jail is off by configuration.
  BatteryRun r = in_world("", session_file({}, false));
  expect_failed(r, {});
  EXPECT_NE(r.detail("19").find("jail disabled"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("20").find("jail disabled"), std::string::npos) << r.dump();
}

TEST_P(BatteryJail, WithoutASessionTheRoutingTableDecides) {
  BatteryRun open = in_world("", "");
  expect_failed(open, {"19", "20"});
  EXPECT_NE(open.detail("19").find("no blackhole routes"), std::string::npos) << open.dump();
  BatteryRun jailed = in_world(RouteWorld::blackholes(kJailBlackholes) + "ip route add unreachable 169.254.0.0/16\n",
                               "");
  expect_failed(jailed, {});
  EXPECT_NE(jailed.detail("19").find("no session file"), std::string::npos) << jailed.dump();
  BatteryRun isolated = in_world("", "", false);
  expect_failed(isolated, {});
  EXPECT_NE(isolated.detail("20").find("no egress at all"), std::string::npos) << isolated.dump();
}

// ---- 21: the agent's binary ---------------------------------------------------------------

class BatteryAgent : public Battery {
 protected:
  void SetUp() override {
    Battery::SetUp();
    if (IsSkipped()) return;
    entry_ = ".cordon-bt-agent-" + tag_;
    // Real agents live in read-only system locations; /var/tmp is not masked by a tmpfs.
    binary_ = outside_->path() + "/bin/fakeagent";
    write_file(binary_, "#!/bin/sh\necho fake agent " + tag_ + "\n", 0755);
    ::chown(binary_.c_str(), 0, 0);
  }
  // A launch makes the profile's missing home entry: it goes with the test.
  void TearDown() override {
    std::error_code ec;
    if (!entry_.empty()) fs::remove_all(who_.home + "/" + entry_, ec);
  }
  std::string agent_config(const std::string& binary) {
    return write_config("agent.toml", std::string(kNoJail) + "[agents.fake]\nbinary = \"" + binary + "\"\nhome = [\"" +
                                          entry_ + "\"]\n");
  }
  std::string entry_, binary_;
};

TEST_P(BatteryAgent, Check21FailsForAWritableCopyInTheAgentsHome) {
  std::string home_entry = who_.home + "/" + entry_;
  Plant unrelated(home_entry + "/settings.json", "{}\n", who_.uid, who_.gid);
  ASSERT_TRUE(unrelated.present());
  std::string config = agent_config(binary_);
  BatteryRun clean = in_cordon({"--agent", "fake"}, {}, config);
  expect_failed(clean, kOverrideBaseline);  // control
  EXPECT_NE(clean.detail("21").find(binary_ + " read-only"), std::string::npos) << clean.dump();

  // A renamed copy, deep inside the read-write entry.
  write_file(home_entry + "/versions/1.0/node-runner", read_file(binary_), 0755);
  chown_tree(home_entry, who_.uid, who_.gid);
  BatteryRun copy = in_cordon({"--agent", "fake"}, {}, config);
  expect_failed(copy, with(kOverrideBaseline, {"21"}));
  EXPECT_NE(copy.detail("21").find(home_entry + "/versions/1.0/node-runner (same content)"), std::string::npos)
      << copy.dump();

  // Same name, different content.
  fs::remove_all(home_entry + "/versions");
  write_file(home_entry + "/bin/fakeagent", "#!/bin/sh\necho impostor\n", 0755);
  chown_tree(home_entry, who_.uid, who_.gid);
  BatteryRun named = in_cordon({"--agent", "fake"}, {}, config);
  expect_failed(named, with(kOverrideBaseline, {"21"}));
  EXPECT_NE(named.detail("21").find("fakeagent (same name)"), std::string::npos) << named.dump();
}

// `--agent claude` without `cordon shim install`: the normal layout verifies clean (it was a
// false FAIL naming the missing shim copy). The profile's missing home entries are made.
TEST_P(Battery, Check21PassesForAShippedProfileWithoutAShim) {
  HomeStateLock lock("claude-home");  // another test process may use the same user's Claude state
  const std::string dir = who_.home + "/.claude", file = who_.home + "/.claude.json";
  if (path_exists(dir) || path_exists(file)) GTEST_SKIP() << who_.home << " has a Claude Code state; not touching it";
  BatteryRun r = in_cordon({"--agent", "claude"});
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::remove(file, ec);
  expect_failed(r, kOverrideBaseline);
  EXPECT_NE(r.detail("21").find("profile claude runs no agent binary"), std::string::npos) << r.dump();
  EXPECT_NE(r.detail("03").find("profile claude"), std::string::npos) << r.dump();
}

TEST_P(BatteryAgent, Check21FailsForAnAgentBinaryInTheWorkspace) {
  std::string binary = workspace_ + "/tools/fakeagent";
  write_file(binary, "#!/bin/sh\necho ws agent\n", 0755);
  chown_tree(workspace_, who_.uid, who_.gid);
  BatteryRun r = in_cordon({"--agent", "fake"}, {}, agent_config(binary));
  expect_failed(r, with(kOverrideBaseline, {"21"}));
  EXPECT_NE(r.detail("21").find("agent binary " + binary + " is writable"), std::string::npos) << r.dump();
}

// ---- 22 / 23: kernel interfaces -----------------------------------------------------------

TEST_P(Battery, Check22FailsWithoutTheSeccompFilter) {
  BatteryRun r = in_cordon({"--test-weaken", "no-seccomp"});
  expect_failed(r, with(kOverrideBaseline, {"22"}));
  EXPECT_NE(r.detail("22").find("Seccomp: 0"), std::string::npos) << r.dump();
  // --disable-userns still refuses nested user namespaces without the filter.
  EXPECT_NE(r.rows["23"].mechanism.find("max_user_namespaces"), std::string::npos) << r.dump();
}

// `sudo -E` or a CI override: $HOME names another directory. The account's own home is a
// tmpfs too, and 03 looks at both; without that tmpfs (test hook) 03 FAILs naming it.
TEST_P(Battery, Check03HidesTheAccountsHomeWhenHomeIsElsewhere) {
  RunOptions o;
  o.env = env_with_other_home(who_, outside_->path() + "/ci-home");
  BatteryRun r = in_cordon({}, o);
  expect_failed(r, kOverrideBaseline);
  EXPECT_NE(r.detail("03").find("the account's home " + who_.home + " hidden too"), std::string::npos) << r.dump();
  BatteryRun weak = in_cordon({"--test-weaken", "no-account-home-tmpfs"}, o);
  expect_failed(weak, with(kOverrideBaseline, {"03"}));
  EXPECT_NE(weak.detail("03").find("the account's home " + who_.home + " is not a fresh tmpfs"), std::string::npos)
      << weak.dump();
}

// On a terminal, the session's terminals are its own pty; with the pty made but not handed in
// (the operator's terminal shared, as before the private terminal), 28 FAILs naming the fd.
TEST_P(Battery, Check28PassesOnAPrivateTerminalAndFailsWithTheOperatorsTerminal) {
  RunOptions o;
  o.on_pty = true;
  BatteryRun ok = in_cordon({}, o);
  EXPECT_FALSE(ok.fails("28")) << ok.dump();
  EXPECT_NE(ok.detail("28").find("are its own"), std::string::npos) << ok.dump();
  BatteryRun shared = in_cordon({"--test-weaken", "shared-terminal"}, o);
  expect_failed(shared, with(kOverrideBaseline, {"28"}));
  EXPECT_NE(shared.detail("28").find("fd 0 is the operator's terminal"), std::string::npos) << shared.dump();
}

// Without a terminal there is nothing to relay, and 28 says so.
TEST_P(Battery, Check28PassesWithoutATerminal) {
  BatteryRun r = in_cordon({"--test-weaken", "shared-terminal"});
  expect_failed(r, kOverrideBaseline);
  EXPECT_NE(r.detail("28").find("not terminals"), std::string::npos) << r.dump();
}

// A filter that is present (Seccomp: 2) but lacks the TIOCSTI rule.
int filter_without_tiocsti() {
  scmp_filter_ctx ctx = ::seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx || ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(acct), 0) != 0)
    throw std::runtime_error("seccomp");
  int fd = ::memfd_create("cordon-bt-filter", 0);  // inherited by bwrap
  if (fd < 0 || ::seccomp_export_bpf(ctx, fd) != 0) throw std::runtime_error("seccomp export");
  ::seccomp_release(ctx);
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

TEST_P(Battery, Check22FailsForAFilterWithoutTheTiocstiRule) {
  int fd = filter_without_tiocsti();
  std::string libexec = fs::path(battery_).parent_path().string();
  RunOptions o = as_who();
  BatteryRun r = parse_run(run({"/usr/bin/bwrap",
                                "--unshare-all",
                                "--die-with-parent",
                                "--ro-bind",
                                "/",
                                "/",
                                "--dev",
                                "/dev",
                                "--proc",
                                "/proc",
                                "--tmpfs",
                                "/tmp",
                                "--ro-bind",
                                libexec,
                                libexec,
                                "--seccomp",
                                std::to_string(fd),
                                "--",
                                battery_,
                                "--json",
                                "--only",
                                "22"},
                               o));
  ::close(fd);
  if (read_file("/proc/sys/dev/tty/legacy_tiocsti").rfind("0", 0) == 0) {
    // The kernel itself refuses TIOCSTI here: the property holds, and the battery says by what.
    expect_failed(r, {});
    EXPECT_NE(r.detail("22").find("refused by the kernel with EIO"), std::string::npos) << r.dump();
    return;
  }
  expect_failed(r, {"22"});
  EXPECT_NE(r.detail("22").find("TIOCSTI injected input"), std::string::npos) << r.dump();
}

TEST_P(Battery, Check23FailsWhenUserNamespacesAreAllowed) {
  BatteryRun r = in_cordon({"--test-weaken", "allow-userns"});
  // allow-userns removes both layers (--disable-userns and the filter), so 22 fails as well.
  expect_failed(r, with(kOverrideBaseline, {"22", "23"}));
  EXPECT_NE(r.detail("23").find("a new user namespace was created"), std::string::npos) << r.dump();
}

// ---- 24: abstract sockets -------------------------------------------------------------------

TEST_P(Battery, Check24NamesAHostListenerInASharedNetworkNamespace) {
  AbstractListener canary("cordon-bt-canary-" + tag_);
  BatteryRun r = in_cordon();
  expect_failed(r, kOverrideBaseline);
  EXPECT_NE(r.detail("24").find("@cordon-bt-canary-" + tag_), std::string::npos) << r.dump();

  std::string libexec = fs::path(battery_).parent_path().string();
  auto bare = [&](bool own_net) {
    std::vector<std::string> argv = {"/usr/bin/bwrap",
                                     "--unshare-user",
                                     "--unshare-pid",
                                     "--unshare-ipc",
                                     "--die-with-parent",
                                     "--ro-bind",
                                     "/",
                                     "/",
                                     "--dev",
                                     "/dev",
                                     "--proc",
                                     "/proc",
                                     "--tmpfs",
                                     "/tmp",
                                     "--ro-bind",
                                     libexec,
                                     libexec};
    if (own_net) argv.push_back("--unshare-net");
    argv.insert(argv.end(), {"--", battery_, "--json", "--only", "24"});
    return parse_run(run(argv, as_who()));
  };
  // No session file: a listener no process of the sandbox holds is someone else's.
  BatteryRun shared = bare(false);
  expect_failed(shared, {"24"});
  EXPECT_NE(shared.detail("24").find("outside the sandbox are listening here: "), std::string::npos) << shared.dump();
  EXPECT_NE(shared.detail("24").find("@cordon-bt-canary-" + tag_), std::string::npos) << shared.dump();
  BatteryRun own = bare(true);
  expect_failed(own, {});
  EXPECT_NE(own.detail("24").find("no session file"), std::string::npos) << own.dump();
}

// ---- 26: system credential files -----------------------------------------------------------

TEST_P(Battery, Check26FailsWithoutMasksAsRoot) {
  BatteryRun r = in_cordon({"--test-weaken", "no-masks"});
  if (root()) {
    expect_failed(r, with(kOverrideBaseline, {"26", "30"}));
    EXPECT_NE(r.detail("26").find("/etc/shadow"), std::string::npos) << r.dump();
  } else {
    // The unprivileged user cannot read them anyway: the property holds without the mask.
    expect_failed(r, kOverrideBaseline);
    EXPECT_NE(r.detail("26").find("/etc/shadow unreadable"), std::string::npos) << r.dump();
  }
}

// ---- Foreign sandboxes ---------------------------------------------------------------------

TEST_P(Battery, BareBwrapWithoutASessionFileFallsBack) {
  std::string libexec = fs::path(battery_).parent_path().string();
  RunOptions o = as_who();
  BatteryRun r = parse_run(run({"/usr/bin/bwrap",
                                "--unshare-all",
                                "--die-with-parent",
                                "--cap-drop",
                                "ALL",
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
                                "/run",
                                "--tmpfs",
                                who_.home,
                                "--ro-bind",
                                libexec,
                                libexec,
                                "--",
                                battery_,
                                "--json"},
                               o));
  ASSERT_TRUE(r.doc.contains("session_file"));
  EXPECT_TRUE(r.doc["session_file"].is_null());
  EXPECT_TRUE(r.doc["profile"].is_null());
  // What a bare bwrap lacks: the sentinel, the git config, a filter; it allows nested userns;
  // root can read /etc/shadow.
  // Checks 30 and 33 need the session file to know the intended view and Landlock layer.
  expect_failed(r, root() ? std::set<std::string>{"01", "16", "22", "23", "26", "30", "33"}
                          : std::set<std::string>{"01", "16", "22", "23", "30", "33"});
  // Checks that compare with the launcher's intent say they fell back.
  for (const char* id : {"03", "04", "07", "08", "09", "17", "18", "19", "20", "21", "24", "27"})
    EXPECT_NE(r.detail(id).find("no session file"), std::string::npos) << id << "\n" << r.dump();
  EXPECT_NE(r.detail("19").find("no egress to confine"), std::string::npos) << r.dump();
}

// bwrap leaves a submount read-write when it may not search the path to remount it (a container
// store under a 0700 root directory). Check 17 names such a mount instead of failing, since the
// kernel refuses the session the path too; the same mount within the session's reach FAILs.
TEST_P(Battery, Check17NamesAReadWriteMountOutOfReachAndFailsOneWithinReach) {
  if (root()) GTEST_SKIP() << "root's bwrap may search every path, so it remounts every submount read-only";
  TempDir scratch("/var/tmp/cordon-reach-");  // not under the sandbox's /tmp tmpfs
  const std::string hidden = scratch.path() + "/hidden", store = hidden + "/store", source = scratch.path() + "/source";
  fs::create_directories(store);
  fs::create_directories(source);
  fs::permissions(scratch.path(), fs::perms(0755));
  fs::permissions(hidden, fs::perms(0700));
  std::string libexec = fs::path(battery_).parent_path().string();
  // In a private mount namespace of its own (the host's table is untouched): with `mount_store`, a
  // read-write bind at `store`; then bare bwrap as the unprivileged user, `extra` added to its mounts.
  auto bare = [&](bool mount_store, const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {
        "/usr/bin/unshare",
        "-m",
        "--propagation",
        "private",
        "/bin/sh",
        "-c",
        "set -e; if [ -n \"$1\" ]; then mount --bind \"$1\" \"$2\"; fi; shift 2; exec \"$@\"",
        "sh",
        mount_store ? source : "",
        store};
    for (auto& word : setpriv_as(who_)) argv.push_back(word);
    argv.insert(argv.end(), {"/usr/bin/bwrap",
                             "--unshare-all",
                             "--die-with-parent",
                             "--cap-drop",
                             "ALL",
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
                             "/run",
                             "--tmpfs",
                             who_.home,
                             "--ro-bind",
                             libexec,
                             libexec});
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), {"--", battery_, "--json"});
    RunOptions o;
    o.env = base_env(who_);
    return parse_run(run(argv, o));
  };
  // How many read-write mounts check 17 found out of reach (other such mounts may be the host's own).
  auto out_of_reach = [](const BatteryRun& r) {
    const std::string marker = "out of this process's reach (search permission denied): ";
    size_t at = r.detail("17").find(marker);
    return at == std::string::npos ? 0 : std::stoi(r.detail("17").substr(at + marker.size()));
  };
  const std::set<std::string> bare_fails = {"01", "16", "22", "23", "30", "33"};
  BatteryRun without = bare(false, {});
  expect_failed(without, bare_fails);
  // Out of reach: root's 0700 directory; bwrap could not remount the store read-only, and this
  // process cannot reach it either. Passed, and counted.
  BatteryRun hidden_run = bare(true, {});
  expect_failed(hidden_run, bare_fails);
  EXPECT_EQ(out_of_reach(hidden_run), out_of_reach(without) + 1) << hidden_run.dump() << without.dump();
  // Within reach: the directory is the user's, and the store is bound read-write into the sandbox.
  ASSERT_EQ(::chown(hidden.c_str(), who_.uid, who_.gid), 0);
  BatteryRun reachable = bare(true, {"--bind", store, store});
  expect_failed(reachable, with(bare_fails, {"17"}));
  EXPECT_NE(reachable.detail("17").find(store + " (ext4)"), std::string::npos) << reachable.dump();
  // Out of reach only by a directory this process owns (mode 000: it could chmod it back, as a
  // session could leave one in its workspace): not out of reach, and FAILs.
  fs::permissions(hidden, fs::perms::none);
  BatteryRun own_lock = bare(true, {"--bind", store, store});
  expect_failed(own_lock, with(bare_fails, {"17"}));
  EXPECT_NE(own_lock.detail("17").find(store + " (ext4)"), std::string::npos) << own_lock.dump();
}

// ---- 27: resource budgets -----------------------------------------------------------------

TEST_P(Battery, Check27PassesForHeldRlimitsAndFailsWithoutThem) {
  std::string config = write_config("rlimits.toml",
                                    std::string(kNoJail) + "[limits]\nnofile = 256\nfsize_bytes = 1073741824\n");
  BatteryRun held = in_cordon({}, {}, config);
  expect_failed(held, kOverrideBaseline);
  EXPECT_NE(held.detail("27").find("nofile=256"), std::string::npos) << held.dump();
  EXPECT_NE(held.detail("27").find("core=0"), std::string::npos) << held.dump();
  // The same intent in the session file, but the launcher applied no rlimits.
  BatteryRun weakened = in_cordon({"--test-weaken", "no-rlimits"}, {}, config);
  expect_failed(weakened, with(kOverrideBaseline, {"27"}));
  EXPECT_NE(weakened.detail("27").find("nofile hard limit is"), std::string::npos) << weakened.dump();
  // `cordon verify --limit` checks the sandbox a run with the same --limit would get.
  BatteryRun verify = parse_run(run(
      {cordon_, "--config", config, "verify", "--workspace", workspace_, "--json", "--limit", "nofile=128"}, as_who()));
  expect_failed(verify, kOverrideBaseline, true);
  EXPECT_NE(verify.detail("27").find("nofile=128"), std::string::npos) << verify.dump();
}

TEST_P(Battery, Check27FindsTheSessionCgroupAndFailsWithoutIt) {
  auto site = root_budget_site("pids_max", 64);
  if (!site) GTEST_SKIP() << "no cgroup hierarchy here carries the pids controller";
  LaunchScope scope(*site, who_);  // delegated to the launching user (root or not)
  std::string config = write_config("pids.toml", std::string(kNoJail) + "[limits]\npids_max = 64\n");
  auto launch = [&](const std::vector<std::string>& cordon_args) {
    RunOptions o = as_who();
    o.as.reset();  // the scope's wrapper becomes the user
    return parse_run(run(scope.wrap(cordon_run(cordon_args, {"--json"}, config), who_), o));
  };
  BatteryRun held = launch({});
  expect_failed(held, kOverrideBaseline);
  EXPECT_NE(held.detail("27").find("pids_max=64 (" + scope.dir() + "/cordon-"), std::string::npos) << held.dump();
  // The session file still names the budget, but no session cgroup was made.
  BatteryRun weakened = launch({"--test-weaken", "no-cgroup"});
  expect_failed(weakened, with(kOverrideBaseline, {"27"}));
  EXPECT_NE(weakened.detail("27").find("no session cgroup under " + scope.dir() + " holds this process"),
            std::string::npos)
      << weakened.dump();
}

// Check 33 measures the Landlock layer: with the ruleset (the default) the sentinel and a file
// made in /dev are refused, and bwrap's pid 1 cannot be signalled; without it (the no-landlock
// weakening: the session file still says applied) the sentinel opens and the check FAILs.
TEST_P(Battery, Check33PassesWithLandlockAndFailsWithoutIt) {
  BatteryRun held = in_cordon();
  expect_failed(held, kOverrideBaseline);
  EXPECT_EQ(held.rows["33"].status, "PASS") << held.dump();
  EXPECT_NE(held.detail("33").find(": sentinel EACCES"), std::string::npos) << held.dump();
  EXPECT_NE(held.detail("33").find("kill(1, 0) EPERM"), std::string::npos) << held.dump();

  BatteryRun weak = in_cordon({"--test-weaken", "no-landlock"});
  expect_failed(weak, with(kOverrideBaseline, {"33"}));
  EXPECT_NE(weak.detail("33").find("opened for reading: no Landlock ruleset in force"), std::string::npos)
      << weak.dump();
}

// Configured off, the battery says the session has one filesystem layer: a WARN, never a PASS.
TEST_P(Battery, Check33WarnsWhenLandlockIsOff) {
  const std::string config = write_config("off.toml", std::string(kNoJail) + "[sandbox]\nlandlock = \"off\"\n");
  BatteryRun r = in_cordon({}, {}, config);
  expect_failed(r, kOverrideBaseline);
  EXPECT_EQ(r.rows["33"].status, "WARN") << r.dump();
  EXPECT_NE(r.detail("33").find("ONE FILESYSTEM LAYER"), std::string::npos) << r.dump();
}

// Review mode: the workspace is the session's overlay (PASS naming the mode); with the review
// overlay left out (the host tree bound read-write while the session file says "review") check
// 34 FAILs. In direct mode it passes and says the writes are live.
TEST_P(Battery, Check34HoldsTheReviewOverlayAndFailsWithTheHostTreeInstead) {
  BatteryRun direct = in_cordon();
  expect_failed(direct, kOverrideBaseline);
  EXPECT_NE(direct.detail("34").find("direct mode"), std::string::npos) << direct.dump();

  BatteryRun review = in_cordon({"--review"});
  expect_failed(review, kOverrideBaseline);
  EXPECT_NE(review.detail("34").find("review mode: the workspace " + workspace_ + " is an overlay"), std::string::npos)
      << review.dump();

  BatteryRun weak = in_cordon({"--review", "--test-weaken", "review-direct"});
  expect_failed(weak, with(kOverrideBaseline, {"34"}));
  EXPECT_NE(weak.detail("34").find("not the session's overlay: the session's writes reach the host tree"),
            std::string::npos)
      << weak.dump();
}

TEST_P(Battery, ExplicitSessionFileMustExist) {
  RunResult r = run({battery_, "--session", base_->path() + "/missing"}, as_who());
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("cannot read session file"), std::string::npos) << r.err;
  write_file(base_->path() + "/bogus", "not a session\n");
  RunResult bogus = run({battery_, "--session", base_->path() + "/bogus"}, as_who());
  EXPECT_EQ(bogus.exit_code, 64);
  EXPECT_NE(bogus.err.find("not a cordon session file"), std::string::npos) << bogus.err;
}

// ---- Output contract ---------------------------------------------------------------------

TEST_P(Battery, PlainOutputContract) {
  RunResult r = run(cordon_run({}, {}, config_), as_who());
  std::istringstream lines(r.out);
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_EQ(line, "cordon-battery: 34 checks");
  const std::regex row(R"(  \[(PASS|WARN|FAIL)\] (\d\d) ([^\x1b]+))");
  int pass = 0, warned = 0, failed = 0, expected_id = 1;
  while (std::getline(lines, line) && line.rfind("  Summary:", 0) != 0) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, row)) << line;
    EXPECT_EQ(m[2].str(), two_digits(expected_id++));
    if (m[1] == "PASS") ++pass;
    else if (m[1] == "WARN") {
      ++warned;
      EXPECT_NE(m[3].str().find(" \u2014 "), std::string::npos) << "a WARN row says what is not in force: " << line;
    } else {
      ++failed;
      EXPECT_NE(m[3].str().find(" \u2014 "), std::string::npos) << "a FAIL row carries a reason: " << line;
    }
  }
  EXPECT_EQ(expected_id, 35);
  EXPECT_EQ(line, "  Summary: " + std::to_string(pass) + " PASS / " +
                      (warned ? std::to_string(warned) + " WARN / " : std::string()) + std::to_string(failed) +
                      " FAIL");
  EXPECT_EQ(r.exit_code, failed);
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "no colour when stdout is not a terminal";
}

TEST_P(Battery, ColourOnlyOnATerminal) {
  RunOptions o;
  o.on_pty = true;
  RunResult r = run(cordon_run({}, {"--only", "01,24"}, config_), as_who(o));
  EXPECT_NE(r.out.find("\x1b[32m[PASS]\x1b[0m 01"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\x1b[1;31m[FAIL]\x1b[0m 24"), std::string::npos) << r.out;
}

TEST_P(Battery, JsonContract) {
  BatteryRun r = in_cordon();
  ASSERT_TRUE(r.doc.is_object()) << r.raw.out;
  EXPECT_EQ(r.doc["battery"], "cordon-battery");
  EXPECT_EQ(r.doc["version"], 1);
  EXPECT_EQ(r.doc["profile"], "generic");
  EXPECT_EQ(r.doc["session_file"], kSessionFilePath);
  const Json& checks = r.doc["checks"];
  ASSERT_TRUE(checks.is_array());
  EXPECT_EQ(checks.size(), 34u);
  int pass = 0, warned = 0, failed = 0;
  const std::set<std::string> properties = {"launcher_provenance",     "privilege_floor",    "credential_isolation",
                                            "ipc_isolation",           "process_isolation",  "filesystem_confinement",
                                            "configuration_integrity", "egress_confinement", "agent_integrity",
                                            "terminal_isolation",      "resource_budgets"};
  for (const auto& c : checks) {
    for (const char* key : {"id", "name", "status", "detail", "property", "mechanism"}) {
      ASSERT_TRUE(c.contains(key)) << key;
      EXPECT_TRUE(c[key].is_string()) << key;
    }
    EXPECT_EQ(c.size(), 6u);
    EXPECT_TRUE(properties.count(c["property"].get<std::string>())) << c["property"];
    EXPECT_FALSE(c["mechanism"].get<std::string>().empty());
    (c["status"] == "PASS" ? pass : c["status"] == "WARN" ? warned : failed)++;
  }
  EXPECT_EQ(r.doc["pass"], pass);
  EXPECT_EQ(r.doc["warn"], warned);
  EXPECT_EQ(r.doc["fail"], failed);
  EXPECT_EQ(r.raw.exit_code, failed);
  EXPECT_EQ(r.raw.out.back(), '\n');
  EXPECT_EQ(std::count(r.raw.out.begin(), r.raw.out.end(), '\n'), 1) << "one object on one line";
}

TEST_P(Battery, OnlyRunsTheNamedChecks) {
  RunResult r = run(cordon_run({}, {"--only", "7,24"}, config_), as_who());
  EXPECT_EQ(r.out.rfind("cordon-battery: 2 checks\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("] 07 own PID namespace"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[FAIL] 24 "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("] 01 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  Summary: 1 PASS / 1 FAIL\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.exit_code, 1);
  RunResult bad = run({battery_, "--only", "07,99"}, as_who());
  EXPECT_EQ(bad.exit_code, 64);
  EXPECT_NE(bad.err.find("no check numbered \"99\""), std::string::npos) << bad.err;
  RunResult unknown = run({battery_, "--frobnicate"}, as_who());
  EXPECT_EQ(unknown.exit_code, 64);
}

TEST_P(Battery, ListAndHelp) {
  RunResult r = run({battery_, "--list"}, as_who());
  EXPECT_EQ(r.exit_code, 0);
  std::istringstream lines(r.out);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    EXPECT_EQ(line.rfind("  " + two_digits(++n) + " ", 0), 0u) << line;
    EXPECT_NE(line.find(" ["), std::string::npos) << "names its property: " << line;
  }
  EXPECT_EQ(n, 34);
  RunResult help = run({battery_, "--help"}, as_who());
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--only"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(As, Battery, ::testing::Values(Who::Root, Who::User), who_name);
INSTANTIATE_TEST_SUITE_P(As, BatteryJail, ::testing::Values(Who::Root, Who::User), who_name);
INSTANTIATE_TEST_SUITE_P(As, BatteryAgent, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
