// The real agents under `cordon run`: Claude Code, Codex and Gemini CLI, the versions pinned by
// tests/agents/package-lock.json, installed from the npm registry by tests/agents/install.sh into a
// cache outside the repository and seen by the launch exactly as `npm install -g` puts them in
// /usr/local. Each runs in the fake network world (networld.sh) with the profile inferred from
// its command's name, as root and as the world's user, in a workspace under that user's $HOME.
//
// THE ONLY MOCK is the model API: tests/agents/fake_model_api.py on the world's "internet"
// (internet.test:8000, in the router namespace) speaks each vendor's streaming API and asks the
// agent for one shell tool call. The agents, cordon, bwrap, pasta and the agents' homes are real.
// The agents try telemetry and update checks at start: in the world no other name resolves, and
// nothing leaves it.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "common/agent_control.h"
#include "common/json_codec.h"
#include "common/sha256.h"
#include "jail_world.h"
#include "support.h"

namespace cordon::testing {
namespace {

namespace fs = std::filesystem;

NetWorld* world = nullptr;
std::string world_problem;
std::string agents_prefix;  // install.sh's prefix: bin/ and lib/node_modules/

const std::string kAgentsDir = std::string(CORDON_SOURCE_DIR) + "/tests/agents";
const std::string kApi = "http://internet.test:8000";
const std::string kCodexKey = "sk-cordon-test-codex-login";
// Only what the sandbox itself refuses counts as a refused write (ENOENT would be a broken probe).
const std::set<std::string> kRefused = {"EROFS", "EACCES", "EPERM", "EBUSY", "EXDEV"};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct AgentCase {
  const char* name;
  const char* api;                   // the fake server's name for the vendor API
  std::vector<std::string> home;     // the profile's home entries (what a first session lacks)
  std::string env;                   // the launch's environment words besides PATH and HOME
  std::vector<std::string> control;  // home entries the agent reads as configuration or code
  std::string (*first)(const std::string& prompt);
  std::string (*second)(const std::string& prompt);
};

const std::vector<AgentCase>& agent_cases() {
  static const std::vector<AgentCase> cases = {
      {"claude",
       "anthropic",
       {".claude", ".claude.json"},
       "ANTHROPIC_API_KEY=sk-ant-cordon-test ANTHROPIC_BASE_URL=" + kApi,
       shipped_control_entries("claude"),
       [](const std::string& p) { return "claude -p '" + p + "' --dangerously-skip-permissions"; },
       [](const std::string& p) { return "claude --continue -p '" + p + "' --dangerously-skip-permissions"; }},
      // Codex authenticates with the key `codex login` stored in the first session (no key in
      // the environment); its model provider is the user's own ~/.codex/config.toml.
      {"codex",
       "openai-responses",
       {".codex"},
       "",
       shipped_control_entries("codex"),
       [](const std::string& p) { return "codex exec --skip-git-repo-check '" + p + "'"; },
       [](const std::string& p) { return "codex exec --skip-git-repo-check resume --last '" + p + "'"; }},
      {"gemini",
       "gemini",
       {".gemini"},
       "GEMINI_API_KEY=cordon-test-gemini-key GOOGLE_GEMINI_BASE_URL=" + kApi + " GEMINI_CLI_TRUST_WORKSPACE=true",
       shipped_control_entries("gemini"),
       [](const std::string& p) { return "gemini -p '" + p + "' --yolo"; },
       [](const std::string& p) { return "gemini --resume latest -p '" + p + "' --yolo"; }},
  };
  return cases;
}

// The fake model API in the router namespace, serving the world's "internet" address.
std::string start_model_api() {
  const std::string script = "set -e\nmkdir -p " + world->dir + "/api\ncd " + world->dir + "/api\n" + "ip netns exec " +
                             world->router_ns + " timeout 1800 /usr/bin/python3 " + kAgentsDir +
                             "/fake_model_api.py 198.18.0.10 8000 requests.jsonl ready >server.log 2>&1 &\n"
                             "echo $! > pid\n"
                             "i=0; while [ ! -s ready ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done\n"
                             "test -s ready || { cat server.log; exit 1; }\n";
  CommandResult made = run_shell(script);
  return made.status == 0 ? "" : "fake model API: " + made.output;
}

class Agents : public ::testing::TestWithParam<std::tuple<size_t, As>> {
 protected:
  static void SetUpTestSuite() {
    world = open_suite_world(world_problem);
    if (!world || !world_problem.empty()) return;
    // Installs on the first run (npm registry, this namespace), then reuses the cache.
    CommandResult installed = run_shell(kAgentsDir + "/install.sh 2>&1", 1200);
    std::istringstream lines(installed.output);
    for (std::string line; std::getline(lines, line);) agents_prefix = line;  // the prefix is the last line
    if (installed.status != 0 || !path_exists(agents_prefix + "/bin/claude")) {
      world_problem = "tests/agents/install.sh: " + installed.output;
      return;
    }
    world->write_config("agents", "");
    world_problem = start_model_api();
  }
  static void TearDownTestSuite() {
    if (world) run_shell("kill $(cat " + world->dir + "/api/pid) 2>/dev/null");
    close_suite_world(world);
  }

  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "building the network world needs root (CI runs as root)";
    ASSERT_EQ(world_problem, "");
    ASSERT_TRUE(world->user_ready) << "the unprivileged test user is missing";
    agent_ = &agent_cases()[std::get<0>(GetParam())];
    who_ = std::get<1>(GetParam());
    // The world user's agent entries are shared by every process running this suite.
    lock_ = std::make_unique<HomeStateLock>(std::string(NetWorld::kUser) + "-" + agent_->name + "-home");
    if (who_ == As::User) {
      passwd* pw = ::getpwnam(NetWorld::kUser);
      ASSERT_NE(pw, nullptr);
      uid_ = pw->pw_uid;
      gid_ = pw->pw_gid;
      home_ = pw->pw_dir;
    } else {
      home_ = world->dir + "/root-home";  // root's own home is the machine's: a home of its own
      fs::create_directories(home_);
      ::chmod(home_.c_str(), 0700);
    }
    remove_agent_state();
    // A failed test leaves its workspace to look at; the next one of this agent sweeps it.
    std::error_code ec;
    for (const auto& old : fs::directory_iterator(home_ + "/src", ec))
      if (old.path().filename().string().starts_with("agents-") && old.path().string().ends_with(agent_->name))
        fs::remove_all(old.path(), ec);
    workspace_ = home_ + "/src/agents-" + world->id + "-" + agent_->name;
    fs::create_directories(workspace_);
    fs::copy_file(kAgentsDir + "/agent_evidence.py", workspace_ + "/agent_evidence.py",
                  fs::copy_options::overwrite_existing);
    host_config();
    chown_tree(home_ + "/src", uid_, gid_);
  }
  void TearDown() override {
    if (!home_.empty() && !HasFailure()) remove_agent_state();
    std::error_code ec;
    if (!HasFailure() && !workspace_.empty()) fs::remove_all(workspace_, ec);
  }

  // What a first session finds: nothing of the agent, except the user's own configuration.
  void remove_agent_state() const {
    std::error_code ec;
    for (const std::string& e : agent_->home) fs::remove_all(home_ + "/" + e, ec);
  }
  void host_config() const {
    std::string name = agent_->name;
    if (name == "codex") {
      fs::create_directories(home_ + "/.codex");
      write_file(home_ + "/.codex/config.toml",
                 "model = \"cordon-fake-model\"\nmodel_provider = \"cordon-fake\"\n\n[model_providers.cordon-fake]\n"
                 "name = \"cordon fake model API\"\nbase_url = \"" +
                     kApi +
                     "/v1\"\nwire_api = \"responses\"\n"
                     "requires_openai_auth = true\nsupports_websockets = false\nrequest_max_retries = 0\n"
                     "stream_max_retries = 0\n",
                 0600);
      chown_tree(home_ + "/.codex", uid_, gid_);
    } else if (name == "gemini") {
      fs::create_directories(home_ + "/.gemini");
      write_file(home_ + "/.gemini/settings.json", R"({"security":{"auth":{"selectedType":"gemini-api-key"}}})", 0600);
      chown_tree(home_ + "/.gemini", uid_, gid_);
    }
  }

  // `cordon run -- COMMAND` in the workspace, the agents installed in /usr/local (mapped in the
  // launch's own mount namespace: the host's /usr/local is not touched).
  CommandResult session(const std::string& command, const std::string& run_flags = "",
                        const std::string& wrapper = "") const {
    NetWorld::RunOptions o;
    o.as = who_;
    o.fixed_config = true;
    o.workspace = workspace_;
    o.run_flags = run_flags;
    o.wrapper = wrapper;
    o.timeout_seconds = 120;
    o.prelude = "mount -t overlay overlay -o lowerdir=" + agents_prefix +
                "/lib:/usr/local/lib /usr/local/lib\n"
                "mount -t overlay overlay -o lowerdir=" +
                agents_prefix + "/bin:/usr/local/bin /usr/local/bin\n";
    o.env = "PATH=/usr/local/bin:/usr/bin:/bin HOME=" + home_ + " " + agent_->env;
    std::string config = world->dir + "/cfg/agents.toml";
    return world->cordon_run(config, command, o);
  }

  // The requests the fake model API logged whose detail (command or tool output) holds `part`.
  std::vector<Json> requests(const std::string& part) const {
    std::vector<Json> found;
    std::istringstream lines(read_file(world->dir + "/api/requests.jsonl"));
    for (std::string line; std::getline(lines, line);) {
      auto entry = parse_json(line, nullptr);
      if (entry && (*entry)["detail"].is_string() && has((*entry)["detail"].get<std::string>(), part))
        found.push_back(*entry);
    }
    return found;
  }
  // The last requests the fake model API saw, for a failure's message.
  static std::string api_log_tail() {
    std::vector<std::string> lines;
    std::istringstream in(read_file(world->dir + "/api/requests.jsonl"));
    for (std::string line; std::getline(in, line);) lines.push_back(line.substr(0, 400));
    std::string tail = "model API requests (last 6 of " + std::to_string(lines.size()) + "):\n";
    for (size_t i = lines.size() > 6 ? lines.size() - 6 : 0; i < lines.size(); ++i) tail += lines[i] + "\n";
    return tail;
  }
  std::string nonce(const char* step) const {
    return std::string(agent_->name) + "-" + (who_ == As::Root ? "root" : "user") + "-" + step + "-" + world->id;
  }
  // The model API saw the call go out for `command` and its output come back, holding `output`.
  void expect_round_trip(const std::string& command, const std::string& output) const {
    bool called = false, answered = false;
    for (const Json& r : requests(command)) called |= r["answer"] == "tool_call" && r["api"] == agent_->api;
    for (const Json& r : requests(output)) answered |= r["answer"] == "final" && r["api"] == agent_->api;
    EXPECT_TRUE(called) << "the fake model API never handed out the call " << command << "\n" << api_log_tail();
    EXPECT_TRUE(answered) << "no request carried the tool's output " << output << "\n" << api_log_tail();
  }

  // Codex's login: `codex login` reads the key from stdin and keeps it in ~/.codex/auth.json
  // (state); the sessions after it carry no key in their environment.
  void log_in() const {
    if (std::string(agent_->name) != "codex") return;
    CommandResult login = session("codex login --with-api-key", "",
                                  "/bin/sh -c 'echo " + kCodexKey + " | exec \"$@\"' sh");
    ASSERT_EQ(login.status, 0) << login.output;
    EXPECT_TRUE(has(read_file(home_ + "/.codex/auth.json"), kCodexKey)) << login.output;
  }

  // The agent's shell call runs agent_evidence.py's write probes; `e` is what they found.
  void probe_writes(const std::string& run_flags, Json& e) const {
    const std::string nonce_writes = nonce("writes");
    const std::string command = "python3 agent_evidence.py writes " + std::string(agent_->name) + " " + nonce_writes;
    CommandResult run = session(agent_->first("Run this shell command: CORDON-RUN<<" + command + ">>"), run_flags);
    ASSERT_EQ(run.status, 0) << run.output << api_log_tail();
    expect_round_trip(command, "CORDON-EVIDENCE " + nonce_writes);
    auto evidence = parse_json(read_file(workspace_ + "/evidence-writes.json"), nullptr);
    ASSERT_TRUE(evidence.has_value()) << run.output;
    e = *evidence;
  }

  // `cordon diff|apply|discard ARGS` as this test's identity, from the workspace, in the fake
  // host like every launch (they send nothing; the world keeps it that way) and with the same
  // private state directory: stdout in `output`, stderr in `*err`.
  CommandResult review_command(const std::string& args, std::string* err) const {
    const std::string err_path = world->dir + "/scripts/review-" + nonce("stderr");
    const std::string as = who_ == As::User ? std::string("runuser -u ") + NetWorld::kUser + " -- " : "";
    CommandResult r = run_shell("cd " + workspace_ + " && ip netns exec " + world->host_ns + " " + as +
                                "env -i PATH=/usr/bin:/bin HOME=" + home_ +
                                " CORDON_TEST_STATE_DIR=" + world->state_dir + " " + world->cordon + " --config " +
                                world->dir + "/cfg/agents.toml " + args + " 2>" + err_path);
    *err = read_file(err_path);
    return r;
  }
  // Where cordon keeps this identity's records and reviews under the world's state directory.
  std::string state_of_identity() const { return world->state_dir + "/" + std::to_string(uid_); }
  // The ids of the sessions recorded for this test's workspace.
  std::set<std::string> session_ids() const {
    std::set<std::string> ids;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(state_of_identity() + "/sessions", ec)) {
      if (e.path().extension() != ".json") continue;
      std::vector<Json> lines = record_lines(e.path().string());
      if (!lines.empty() && lines[0].contains("workspace") && bytes_from_json(lines[0]["workspace"]) == workspace_)
        ids.insert(e.path().stem().string());
    }
    return ids;
  }

  const AgentCase* agent_ = nullptr;
  As who_ = As::Root;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  std::string home_, workspace_;
  std::unique_ptr<HomeStateLock> lock_;
};

std::string ns_of(const std::string& path) {
  std::error_code ec;
  return fs::read_symlink(path, ec).string();
}

// The agent starts under `cordon run` with the profile its name selects, asks the model, runs
// the one shell call, and the call's evidence shows cordon's sandbox: its own user, pid and
// network namespaces, the workspace on the host, HOME, IS_SANDBOX; writes to the agent's state
// succeed. A second session finds the first one's state: the model sees the first call's output
// again, in the history the agent kept (claude --continue, codex exec resume --last, gemini
// --resume latest), under the same identity; Codex uses the key `codex login` stored.
TEST_P(Agents, RunsItsToolCallInsideAndTheSecondSessionFindsTheFirstsState) {
  const std::string name = agent_->name;
  ASSERT_NO_FATAL_FAILURE(log_in());
  const std::string first = nonce("first");
  const std::string command = "python3 agent_evidence.py inside " + name + " " + first;
  CommandResult run = session(agent_->first("Run this shell command: CORDON-RUN<<" + command + ">>"));
  ASSERT_EQ(run.status, 0) << run.output << api_log_tail();
  expect_round_trip(command, "CORDON-EVIDENCE " + first);
  if (name == "codex") {
    for (const Json& r : requests(command)) EXPECT_EQ(r["key"], "Bearer " + kCodexKey) << r.dump();
  }

  const std::string evidence_path = workspace_ + "/evidence-inside.json";
  struct stat st {};
  ASSERT_EQ(::stat(evidence_path.c_str(), &st), 0) << "the tool's file is not in the workspace on the host\n"
                                                   << run.output;
  EXPECT_EQ(st.st_uid, uid_);
  auto evidence = parse_json(read_file(evidence_path), nullptr);
  ASSERT_TRUE(evidence.has_value());
  Json& e = *evidence;
  EXPECT_EQ(e["uid"], uid_);
  EXPECT_NE(e["ns"]["user"], ns_of("/proc/self/ns/user"));
  EXPECT_NE(e["ns"]["pid"], ns_of("/proc/self/ns/pid"));
  EXPECT_NE(e["ns"]["net"], ns_of("/proc/self/ns/net"));
  struct stat host_net {};
  ASSERT_EQ(::stat(("/run/netns/" + world->host_ns).c_str(), &host_net), 0);
  EXPECT_NE(e["ns"]["net"], "net:[" + std::to_string(host_net.st_ino) + "]") << "the launcher's own network";
  EXPECT_EQ(e["home"], home_);
  EXPECT_EQ(e["cwd"], workspace_);
  EXPECT_EQ(e["is_sandbox"], "1");
  EXPECT_EQ(e["profile"], name) << "not the profile the command's name selects";
  ASSERT_FALSE(e["state"].empty());
  for (const auto& [path, result] : e["state"].items()) EXPECT_EQ(result, "ok") << "state " << path;

  const std::string identity_file = name == "claude"  ? "/.claude.json"
                                    : name == "codex" ? "/.codex/installation_id"
                                                      : "/.gemini/installation_id";
  const std::string identity = read_file(home_ + identity_file);
  EXPECT_FALSE(identity.empty()) << home_ + identity_file;
  const std::string second = nonce("second");
  CommandResult again = session(agent_->second("Now run: CORDON-RUN<<echo CORDON-SECOND " + second + ">>"));
  ASSERT_EQ(again.status, 0) << again.output << api_log_tail();
  expect_round_trip("echo CORDON-SECOND " + second, "CORDON-SECOND " + second);
  bool resumed = false;
  for (const Json& r : requests("echo CORDON-SECOND " + second))
    for (const Json& earlier : r["earlier"]) resumed |= has(earlier.get<std::string>(), "CORDON-EVIDENCE " + first);
  EXPECT_TRUE(resumed) << "the second session did not carry the first session's history\n" << api_log_tail();
  if (name == "claude") {
    auto before = parse_json(identity, nullptr), after = parse_json(read_file(home_ + identity_file), nullptr);
    ASSERT_TRUE(before && after);
    EXPECT_EQ((*before)["userID"], (*after)["userID"]) << "a second Claude Code identity";
  } else {
    EXPECT_EQ(read_file(home_ + identity_file), identity) << "a second installation id";
  }
  EXPECT_EQ(world->stray_processes(), "");
}

// From inside, through the agent's own shell tool: every write to the agent's control entries
// (append, replace by rename, create when absent, plant in a directory, rename it away) and to
// the files its processes execute or map fails, with an error of the sandbox's (read-only
// mount, permission), and on the host nothing was planted: for Claude Code not even the control
// keys written into its writable ~/.claude.json.
TEST_P(Agents, CannotWriteItsControlEntriesOrExecutablesFromInside) {
  const std::string name = agent_->name;
  ASSERT_NO_FATAL_FAILURE(log_in());
  Json e;
  ASSERT_NO_FATAL_FAILURE(probe_writes("", e));
  for (const std::string& entry : agent_->control) {
    ASSERT_TRUE(e["control"].contains(entry)) << e["control"].dump();
    for (const auto& [how, result] : e["control"][entry].items())
      EXPECT_TRUE(kRefused.count(result.get<std::string>())) << "control " << entry << " " << how << ": " << result;
  }
  // The agent's own processes: its binary (or node, which runs it) is among them.
  ASSERT_FALSE(e["executables"].empty());
  bool runs_agent = false;
  for (const auto& [path, results] : e["executables"].items()) {
    runs_agent |= has(path, "/node_modules/") || path == "/usr/bin/node";
    for (const auto& [how, result] : results.items())
      EXPECT_TRUE(kRefused.count(result.get<std::string>())) << "executable " << path << " " << how << ": " << result;
  }
  EXPECT_TRUE(runs_agent) << e["executables"].dump(1);
  for (const std::string& entry : agent_->control) {
    const std::string path = home_ + "/" + entry;
    EXPECT_FALSE(has(read_file(path), "CORDON-PLANTED")) << path;
    EXPECT_FALSE(path_exists(path + "/cordon-planted")) << path;
    EXPECT_FALSE(path_exists(path + ".cordon-moved")) << path;
  }
  if (name == "claude") {
    // ~/.claude.json stays writable (state), but the MCP server and the granted tool written
    // into it from inside are not what Claude Code finds there after the session.
    EXPECT_EQ(e["control_keys"], "ok");
    const std::string state_file = read_file(home_ + "/.claude.json");
    EXPECT_TRUE(parse_json(state_file, nullptr).has_value()) << state_file;
    EXPECT_FALSE(has(state_file, "CORDON-PLANTED")) << state_file;
  }
  EXPECT_EQ(world->stray_processes(), "");
}

// The probes can fail: without the control entries' read-only binds (a test-build weakening),
// the same writes from inside succeed and what they planted is on the host.
TEST_P(Agents, WithoutTheReadOnlyBindsTheSameWritesReachTheHost) {
  ASSERT_NO_FATAL_FAILURE(log_in());
  Json e;
  ASSERT_NO_FATAL_FAILURE(probe_writes("--test-weaken writable-agent-control", e));
  for (const std::string& entry : agent_->control) {
    bool written = false;
    for (const auto& [how, result] : e["control"][entry].items()) written |= result == "ok";
    EXPECT_TRUE(written) << "control " << entry << ": " << e["control"][entry].dump();
  }
  const std::string settings = home_ + "/" + agent_->control.front();  // the agent's settings file
  EXPECT_TRUE(has(read_file(settings), "CORDON-PLANTED")) << settings;
}

// The workspace's tree as text: each entry's relative path, mode, owner and content (or target).
std::string tree_of(const std::string& root) {
  std::map<std::string, std::string> entries;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator(); ++it) {
    struct stat st {};
    ::lstat(it->path().c_str(), &st);
    std::string what = std::to_string(st.st_mode) + " " + std::to_string(st.st_uid) + " ";
    if (S_ISREG(st.st_mode)) what += read_file(it->path());
    else if (S_ISLNK(st.st_mode)) what += fs::read_symlink(it->path()).string();
    entries[it->path().string().substr(root.size() + 1)] = what;
  }
  std::string out;
  for (const auto& [path, what] : entries) out += path + " = " + what + "\n";
  return out;
}

// Review mode under a real agent: the same one shell call as the first test, in a session
// launched with `cordon run --review`; agent_evidence.py's review mode writes its evidence and,
// beside it, agent_settings.py holding a GitHub-token-shaped string (the agent's own session
// plants the secret). Nothing reaches the host tree: both files wait in the session's upper
// layer, `cordon diff` lists them and its scan finds the token, which blocks `cordon apply`
// (exit 1, nothing written) until it is accepted by id; then apply lands exactly the bytes
// the diff showed, owned by the identity that ran the session. Nothing more is mocked: the model
// API is still the only fake; the agent, the overlay, diff's scan and apply are real.
TEST_P(Agents, InReviewModeTheEditWaitsForApplyAndASecretBlocksIt) {
  const std::string name = agent_->name;
  ASSERT_NO_FATAL_FAILURE(log_in());
  const std::string host_before = tree_of(workspace_);
  const std::set<std::string> ids_before = session_ids();

  const std::string nonce_review = nonce("review");
  const std::string command = "python3 agent_evidence.py review " + name + " " + nonce_review;
  CommandResult run = session(agent_->first("Run this shell command: CORDON-RUN<<" + command + ">>"), "--review");
  ASSERT_EQ(run.status, 0) << run.output << api_log_tail();
  expect_round_trip(command, "CORDON-EVIDENCE " + nonce_review);

  // The session's id: the one record this launch added for the workspace.
  std::set<std::string> new_ids;
  for (const std::string& id : session_ids())
    if (!ids_before.count(id)) new_ids.insert(id);
  ASSERT_EQ(new_ids.size(), 1u) << run.output;
  const std::string id = *new_ids.begin();

  // The host tree is as it was; the agent's files are in the review's upper layer.
  EXPECT_EQ(tree_of(workspace_), host_before) << "review mode wrote into the host tree\n" << run.output;
  const std::vector<std::string> written = {"agent_settings.py", "evidence-review.json"};
  for (const std::string& file : written) EXPECT_FALSE(path_exists(workspace_ + "/" + file)) << file;
  const std::string upper = state_of_identity() + "/reviews/" + id + "/upper";
  std::map<std::string, std::string> staged;
  for (const std::string& file : written) {
    ASSERT_TRUE(path_exists(upper + "/" + file)) << upper << "/" << file << "\n" << run.output;
    staged[file] = read_file(upper + "/" + file);
  }
  auto evidence = parse_json(staged["evidence-review.json"], nullptr);
  ASSERT_TRUE(evidence.has_value()) << staged["evidence-review.json"];
  EXPECT_EQ((*evidence)["workspace_mode"], "review");
  EXPECT_EQ((*evidence)["uid"], uid_);
  EXPECT_EQ((*evidence)["cwd"], workspace_);
  EXPECT_EQ((*evidence)["profile"], name);
  const std::string token = "ghp_" + std::string("cordon") + "012345678901234567890123456789";
  EXPECT_TRUE(has(staged["agent_settings.py"], token)) << staged["agent_settings.py"];

  std::string err;
  CommandResult names = review_command("diff --session " + id + " --name-status", &err);
  ASSERT_EQ(names.status, 0) << names.output << err;
  EXPECT_EQ(names.output, "A\tagent_settings.py\nA\tevidence-review.json\n") << err;
  EXPECT_TRUE(has(err, "github-token")) << err;

  CommandResult json = review_command("diff --session " + id + " --json", &err);
  ASSERT_EQ(json.status, 0) << json.output << err;
  auto doc = parse_json(json.output, nullptr);
  ASSERT_TRUE(doc.has_value()) << json.output;
  EXPECT_EQ((*doc)["session"], id);
  std::string finding;
  for (const Json& f : (*doc)["findings"])
    if (f["rule"] == "github-token" && f["path"] == "agent_settings.py" && f["blocks"] == true)
      finding = f["id"].get<std::string>();
  ASSERT_FALSE(finding.empty()) << "no blocking github-token finding: " << json.output;
  std::map<std::string, std::string> shown;  // path -> sha256 of the content the diff shows
  for (const Json& f : (*doc)["files"])
    if (f.contains("sha256_after")) shown[bytes_from_json(f["path"])] = f["sha256_after"].get<std::string>();
  for (const std::string& file : written) EXPECT_EQ(shown[file], sha256_hex(staged[file])) << file;

  CommandResult refused = review_command("apply --session " + id, &err);
  EXPECT_EQ(refused.status, 1) << refused.output << err;
  EXPECT_TRUE(has(err, finding) && has(err, "github-token")) << err;
  EXPECT_FALSE(has(err + refused.output, token)) << "the refusal printed the secret";
  EXPECT_EQ(tree_of(workspace_), host_before) << "a refused apply wrote into the host tree";

  CommandResult accepted = review_command("apply --session " + id + " --accept " + finding, &err);
  ASSERT_EQ(accepted.status, 0) << accepted.output << err;
  for (const std::string& file : written) {
    const std::string path = workspace_ + "/" + file;
    EXPECT_EQ(read_file(path), staged[file]) << path;
    EXPECT_EQ(sha256_hex(read_file(path)), shown[file]) << path;
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0) << path;
    EXPECT_EQ(st.st_uid, uid_) << path;
  }
  EXPECT_FALSE(path_exists(state_of_identity() + "/reviews/" + id)) << "an applied review kept its layer";
  EXPECT_EQ(world->stray_processes(), "");
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<size_t, As>>& info) {
  return std::string(agent_cases()[std::get<0>(info.param)].name) +
         (std::get<1>(info.param) == As::Root ? "_root" : "_user");
}

INSTANTIATE_TEST_SUITE_P(RealAgents, Agents,
                         ::testing::Combine(::testing::Values(size_t{0}, size_t{1}, size_t{2}),
                                            ::testing::Values(As::Root, As::User)),
                         case_name);

}  // namespace
}  // namespace cordon::testing
