// [records] transcript (terminal/transcript.h, commands/transcript_command.h), with real launches
// as root and as the test user: on a terminal the private pty's raw output is kept; on pipes the
// sandbox's stdout and stderr are kept and still reach the caller byte for byte; shown back,
// the transcript goes through the output filter (a clipboard write and a title stay out), raw
// only to a pipe; a cap drops and counts; retention removes it with its record. The control:
// with the transcript off nothing is kept and the receipt says null.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "common/json_codec.h"
#include "launch_fixture.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

// A clipboard write (OSC 52) and a window title (OSC 2) between ordinary text.
constexpr const char* kHostile = "printf 'before \\033]52;c;ZXZpbA==\\007\\033]2;owned\\007 after\\n'";

class TranscriptTest : public LaunchFixture {
 protected:
  void SetUp() override {
    stage("/tmp/cordon-transcript-");
    if (IsSkipped() || HasFatalFailure()) return;
    make_workspace();
  }

  void configure(const std::string& records) {
    write_file(config_, "[network]\nmode = \"offline\"\n[records]\n" + records);
  }

  RunOptions as_who() const {
    RunOptions o;
    o.env = base_env(who_);
    o.as = who_;
    o.cwd = workspace_;
    return o;
  }

  RunResult cordon(const std::vector<std::string>& args, RunOptions o) {
    std::vector<std::string> argv = {cordon_, "--config", config_};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, o);
  }

  // The latest session's id and receipt.
  std::pair<std::string, Json> latest() const {
    std::set<std::string> records = session_records(who_, workspace_);
    if (records.empty()) return {"", Json()};
    const std::string id = fs::path(*records.rbegin()).stem().string();
    std::vector<Json> lines = record_lines(*records.rbegin());
    return {id, lines.size() == 2 ? lines[1]["receipt"] : Json()};
  }

  std::string transcript_path(const std::string& id) const { return sessions_dir_of(who_) + "/" + id + ".transcript"; }
};

TEST_P(TranscriptTest, OnATerminalTheRawOutputIsKeptAndShownBackFiltered) {
  configure("transcript = true\n");
  RunOptions o = as_who();
  o.on_pty = true;
  RunResult r = cordon({"run", "--", "/bin/sh", "-c", kHostile}, o);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto [id, receipt] = latest();
  ASSERT_FALSE(id.empty());
  const std::string kept = read_file(transcript_path(id));
  EXPECT_NE(kept.find("\x1b]52;c;ZXZpbA==\x07"), std::string::npos) << "the transcript keeps the raw bytes";
  EXPECT_NE(kept.find(" o "), std::string::npos) << "a frame of the private terminal";
  EXPECT_GT(receipt["transcript"]["bytes"].get<long long>(), 0) << receipt.dump();
  EXPECT_EQ(receipt["transcript"]["dropped_bytes"], 0);
  // Shown back to a pipe: through the filter, as the live terminal showed it.
  RunResult shown = cordon({"sessions", "transcript", id}, as_who());
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("before"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("after"), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("]52;"), std::string::npos) << "the clipboard write came back out";
  EXPECT_EQ(shown.out.find("owned"), std::string::npos) << "the title came back out";
  // --raw to a pipe: the bytes as written; to a terminal: refused, nothing written.
  RunResult raw = cordon({"sessions", "transcript", "--raw", id}, as_who());
  EXPECT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_NE(raw.out.find("\x1b]52;c;ZXZpbA==\x07"), std::string::npos);
  RunOptions tty = as_who();
  tty.on_pty = true;
  RunResult refused = cordon({"sessions", "transcript", "--raw", id}, tty);
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_EQ(refused.out.find("]52;"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("refusing to write a transcript's raw bytes to a terminal"), std::string::npos)
      << refused.out;
}

// No terminal: stdout and stderr go through the launcher only so the transcript can keep them;
// what the caller reads is still every byte (binary included), and nothing is filtered.
TEST_P(TranscriptTest, OnPipesEachStreamIsKeptAndStillPassesByteForByte) {
  configure("transcript = true\n");
  const std::string all_bytes = "i=0; while [ $i -lt 256 ]; do printf \"\\\\$(printf %o $i)\"; i=$((i+1)); done";
  RunResult r = cordon({"run", "--", "/bin/sh", "-c", all_bytes + "; echo err >&2"}, as_who());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.out.size(), 256u);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(static_cast<unsigned char>(r.out[static_cast<size_t>(i)]), i);
  EXPECT_NE(r.err.find("err"), std::string::npos);
  auto [id, receipt] = latest();
  EXPECT_EQ(receipt["transcript"]["bytes"], 256 + 4) << receipt.dump();
  RunResult raw = cordon({"sessions", "transcript", "--raw", id}, as_who());
  EXPECT_EQ(raw.out, r.out + "err\n");
}

TEST_P(TranscriptTest, PastTheCapChunksAreDroppedAndCountedAndTheCallerStillGetsAll) {
  configure("transcript = true\ntranscript_max_bytes = 4096\n");
  RunResult r = cordon({"run", "--", "/bin/sh", "-c",
                        "i=0; while [ $i -lt 400 ]; do echo 0123456789abcdefghij; "
                        "i=$((i+1)); done"},
                       as_who());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.size(), 400u * 21);
  auto [id, receipt] = latest();
  const long long kept = receipt["transcript"]["bytes"].get<long long>();
  const long long dropped = receipt["transcript"]["dropped_bytes"].get<long long>();
  EXPECT_LE(kept, 4096);
  EXPECT_EQ(kept + dropped, 400 * 21) << receipt.dump();
  RunResult shown = cordon({"sessions", "transcript", id}, as_who());
  EXPECT_NE(shown.err.find("bytes dropped past its cap"), std::string::npos) << shown.err;
}

TEST_P(TranscriptTest, RetentionRemovesATranscriptWithItsRecord) {
  configure("transcript = true\n");
  ASSERT_EQ(cordon({"run", "--", "true"}, as_who()).exit_code, 0);
  const std::string first = latest().first;
  ASSERT_TRUE(path_exists(transcript_path(first)));
  ::sleep(1);  // a later id (ids start with the second)
  ASSERT_EQ(cordon({"run", "--", "true"}, as_who()).exit_code, 0);
  RunResult pruned = cordon({"sessions", "prune", "--keep", "1"}, as_who());
  ASSERT_EQ(pruned.exit_code, 0) << pruned.err;
  EXPECT_FALSE(path_exists(transcript_path(first)));
  EXPECT_TRUE(path_exists(transcript_path(latest().first)));
}

TEST_P(TranscriptTest, ControlOffKeepsNothing) {
  configure("transcript = false\n");
  ASSERT_EQ(cordon({"run", "--", "/bin/sh", "-c", kHostile}, as_who()).exit_code, 0);
  auto [id, receipt] = latest();
  EXPECT_FALSE(path_exists(transcript_path(id)));
  EXPECT_TRUE(receipt["transcript"].is_null()) << receipt.dump();
  RunResult shown = cordon({"sessions", "transcript", id}, as_who());
  EXPECT_EQ(shown.exit_code, 2);
  EXPECT_NE(shown.err.find("has no readable transcript"), std::string::npos) << shown.err;
}

INSTANTIATE_TEST_SUITE_P(As, TranscriptTest, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
