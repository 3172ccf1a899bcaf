// [records] export (record/record_export.h, docs/schemas.md "cordon-export"), with real
// launches as root and as the test user: a collector reading the export (a file, a unix
// socket) rebuilds each session, byte for byte the record's own lines; a collector that does
// not read (a full FIFO, a socket nobody listens on) never holds a session up, and what it
// missed is counted in the receipt and in the next line; a SIGKILLed launcher's session reaches
// the collector through its keeper's sweep.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <thread>

#include "common/json_codec.h"
#include "launch_fixture.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

class RecordExportTest : public LaunchFixture {
 protected:
  void SetUp() override {
    stage("/tmp/cordon-export-");
    if (IsSkipped() || HasFatalFailure()) return;
    make_workspace();
    // Where the collector's file, FIFO or socket lives: the launcher's user may write there.
    collect_ = base_->path() + "/collect";
    fs::create_directories(collect_);
    chown_tree(collect_, who_.uid, who_.gid);
  }

  void configure(const std::string& target) {
    write_file(config_, "[network]\nmode = \"offline\"\n[records]\nexport = \"" + target + "\"\n");
  }

  RunOptions as_who(const std::map<std::string, std::string>& extra = {}) const {
    RunOptions o;
    o.env = base_env(who_, extra);
    o.as = who_;
    o.cwd = workspace_;
    return o;
  }

  RunResult launch(const std::string& script, const std::map<std::string, std::string>& extra = {}) {
    return run({cordon_, "--config", config_, "run", "--", "/bin/sh", "-c", script}, as_who(extra));
  }

  // The export's lines, each parsed strictly.
  static std::vector<Json> lines_of(const std::string& text) {
    std::vector<Json> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      std::optional<Json> doc = parse_json(line, nullptr);
      EXPECT_TRUE(doc.has_value()) << "not JSON: " << line;
      if (doc) out.push_back(*doc);
    }
    return out;
  }

  // The record file of `session` (who's sessions dir).
  std::vector<Json> record_of(const std::string& session) const {
    return record_lines(sessions_dir_of(who_) + "/" + session + ".json");
  }

  std::string collect_;
};

TEST_P(RecordExportTest, ACollectorReadingTheFileRebuildsEachSession) {
  const std::string out = collect_ + "/records.jsonl";
  configure(out);
  const std::map<std::string, std::string> pod = {
      {"CORDON_POD_NAMESPACE", "agents"}, {"CORDON_POD_NAME", "job-7\x1b[2J"}, {"CORDON_NODE_NAME", "node-1"}};
  EXPECT_EQ(launch("exit 0", pod).exit_code, 0);
  EXPECT_EQ(launch("exit 3", pod).exit_code, 3);
  const std::string text = read_file(out);
  for (unsigned char ch : text) EXPECT_TRUE(ch == '\n' || (ch >= 0x20 && ch < 0x7f)) << "a raw control byte";
  std::map<std::string, std::map<std::string, Json>> sessions;  // id -> kind -> line
  for (const Json& line : lines_of(text)) {
    EXPECT_EQ(line["format"], "cordon-export");
    EXPECT_EQ(line["version"], 1);
    EXPECT_TRUE(line["host"].is_string());
    EXPECT_EQ(line["pod"]["namespace"], "agents");
    EXPECT_EQ(line["pod"]["name"], "job-7\x1b[2J");  // the label as data; escaped in the text
    EXPECT_EQ(line["dropped_before"], 0);
    sessions[line["session"].get<std::string>()][line["kind"].get<std::string>()] = line["line"];
  }
  ASSERT_EQ(sessions.size(), 2u) << text;
  std::vector<long long> codes;
  for (const auto& [id, kinds] : sessions) {
    ASSERT_EQ(kinds.size(), 2u) << id;
    const std::vector<Json> record = record_of(id);
    ASSERT_EQ(record.size(), 2u) << id;
    EXPECT_EQ(kinds.at("cordon-manifest"), record[0]) << "the export carries the record's own line";
    EXPECT_EQ(kinds.at("cordon-receipt"), record[1]);
    EXPECT_EQ(record[1]["receipt"]["export"]["manifest"], "sent");
    codes.push_back(record[1]["receipt"]["exit_code"].get<long long>());
  }
  std::sort(codes.begin(), codes.end());
  EXPECT_EQ(codes, (std::vector<long long>{0, 3}));
}

// A unix stream socket a collector listens on (fluent-bit's, vector's): one connection a line.
TEST_P(RecordExportTest, ACollectorOnAUnixSocketGetsEachLine) {
  const std::string path = collect_ + "/collector.sock";
  UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un at{};
  at.sun_family = AF_UNIX;
  std::memcpy(at.sun_path, path.data(), path.size());
  ASSERT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&at), sizeof at), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0777), 0);
  ASSERT_EQ(::listen(listener.get(), 8), 0);
  std::string received;
  std::thread collector([&] {
    // Bounded: at most 4 connections, each read to its end, for at most 30 s in all.
    for (int accepted = 0; accepted < 4; ++accepted) {
      pollfd p{listener.get(), POLLIN, 0};
      if (::poll(&p, 1, accepted < 2 ? 30000 : 500) != 1) return;
      UniqueFd c(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      char buf[8192];
      for (ssize_t n; (n = ::read(c.get(), buf, sizeof buf)) > 0;) received.append(buf, static_cast<size_t>(n));
    }
  });
  configure("unix:" + path);
  EXPECT_EQ(launch("true").exit_code, 0);
  collector.join();
  const std::vector<Json> lines = lines_of(received);
  ASSERT_EQ(lines.size(), 2u) << received;
  EXPECT_EQ(lines[0]["kind"], "cordon-manifest");
  EXPECT_EQ(lines[1]["kind"], "cordon-receipt");
  EXPECT_EQ(lines[0]["session"], lines[1]["session"]);
}

// The collector has stopped reading: its FIFO is full. The session runs and ends as ever (a
// blocked export would hold it until the run's bound and fail here), the receipt says the
// manifest's line was dropped, and once the collector reads again the next line counts both.
TEST_P(RecordExportTest, AStalledCollectorNeverHoldsASessionAndWhatItMissedIsCounted) {
  const std::string fifo = collect_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  ASSERT_EQ(::chmod(fifo.c_str(), 0666), 0);
  UniqueFd reader(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  UniqueFd filler(::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
  ASSERT_TRUE(reader.valid() && filler.valid());
  std::string block(4096, 'x');
  while (::write(filler.get(), block.data(), block.size()) > 0) {
  }
  configure(fifo);
  RunResult r = launch("echo ran");
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ran"), std::string::npos);
  std::set<std::string> records = session_records(who_, workspace_);
  ASSERT_FALSE(records.empty());
  const std::vector<Json> record = record_lines(*records.rbegin());
  ASSERT_EQ(record.size(), 2u);
  const std::string why = record[1]["receipt"]["export"]["manifest"].get<std::string>();
  EXPECT_NE(why.find("bytes free"), std::string::npos) << why;
  // The collector catches up; the next session's lines say two were missed (manifest, receipt).
  while (::read(reader.get(), block.data(), block.size()) > 0) {
  }
  EXPECT_EQ(launch("true").exit_code, 0);
  std::string caught;
  char buf[8192];
  for (ssize_t n; (n = ::read(reader.get(), buf, sizeof buf)) > 0;) caught.append(buf, static_cast<size_t>(n));
  const std::vector<Json> lines = lines_of(caught);
  ASSERT_EQ(lines.size(), 2u) << caught;
  EXPECT_EQ(lines[0]["dropped_before"], 2) << caught;
}

TEST_P(RecordExportTest, ASocketNobodyListensOnIsADropNotAFailure) {
  configure("unix:" + collect_ + "/nobody.sock");
  RunResult r = launch("exit 0");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> records = session_records(who_, workspace_);
  ASSERT_FALSE(records.empty());
  const std::vector<Json> record = record_lines(*records.rbegin());
  ASSERT_EQ(record.size(), 2u);
  EXPECT_NE(record[1]["receipt"]["export"]["manifest"].get<std::string>().find("connecting to"), std::string::npos);
}

// The launcher SIGKILLed mid-session: its keeper sweeps the session and exports the crashed
// receipt, inside its Landlock reach (record/sweep_reach.h grants the export file).
TEST_P(RecordExportTest, ASigkilledLaunchersSessionReachesTheCollectorThroughItsKeeper) {
  const std::string out = collect_ + "/records.jsonl";
  configure(out);
  const pid_t pid = spawn_background(
      {cordon_, "--config", config_, "run", "--", "/bin/sh", "-c", "touch started && sleep 60"}, as_who());
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(wait_for_path(workspace_ + "/started"));
  ::kill(pid, SIGKILL);
  stop_background(pid);
  std::vector<Json> lines;
  for (int i = 0; i < 300 && lines.size() < 2; ++i) {  // the keeper sweeps within a second
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    lines = lines_of(read_file(out));
  }
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["kind"], "cordon-manifest");
  EXPECT_EQ(lines[1]["kind"], "cordon-receipt");
  EXPECT_EQ(lines[0]["session"], lines[1]["session"]);
  EXPECT_TRUE(lines[1]["line"]["receipt"].contains("crashed")) << lines[1].dump();
}

INSTANTIATE_TEST_SUITE_P(As, RecordExportTest, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
