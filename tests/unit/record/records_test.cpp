// The session records' readers, state files and retention, on a private temp directory.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/text.h"
#include "common/utc_time.h"
#include "launcher/record/record_file.h"
#include "launcher/record/session_state.h"
#include "launcher/record/sweep.h"

namespace fs = std::filesystem;

namespace cordon {
namespace {

class Records : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/cordon-records-unit-XXXXXX";
    ASSERT_NE(::mkdtemp(templ), nullptr);
    dir_ = templ;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
  }
  std::string dir_;
};

const char* kManifest = R"({"format":"cordon-manifest","version":2,"session":"x","agent":"generic"})";
const char* kReceipt = R"({"format":"cordon-receipt","version":2,"receipt":{"exit_code":3}})";

TEST(SessionId, OnlyTheLauncherFormIsAnId) {
  EXPECT_TRUE(is_session_id("20261201T131821Z-fa114025"));
  EXPECT_FALSE(is_session_id("20261201T131821Z-FA114025"));
  EXPECT_FALSE(is_session_id("../../etc/passwd"));
  EXPECT_FALSE(is_session_id("20261201T131821Z-fa11402"));
  EXPECT_FALSE(is_session_id(""));
}

TEST_F(Records, ReadsOnlyBoundedRegularFiles) {
  std::string problem;
  write("a.json", "text");
  EXPECT_EQ(read_record(dir_ + "/a.json", &problem), "text");
  ASSERT_EQ(::mkfifo((dir_ + "/fifo.json").c_str(), 0600), 0);
  EXPECT_FALSE(read_record(dir_ + "/fifo.json", &problem));  // never blocks on a FIFO
  EXPECT_NE(problem.find("not a regular file"), std::string::npos) << problem;
  ASSERT_EQ(::symlink((dir_ + "/a.json").c_str(), (dir_ + "/link.json").c_str()), 0);
  EXPECT_FALSE(read_record(dir_ + "/link.json", &problem));  // no symlink followed
  write("big.json", std::string(kMaxRecordBytes + 1, 'x'));
  EXPECT_FALSE(read_record(dir_ + "/big.json", &problem));
  EXPECT_NE(problem.find("larger than"), std::string::npos) << problem;
}

TEST_F(Records, ParsesTheManifestAndReceiptLinesSkippingTheRest) {
  ParsedRecord r = parse_record(std::string(kManifest) + "\n   \nnot json\n     " + kReceipt + "\n");
  ASSERT_TRUE(r.manifest);
  ASSERT_TRUE(r.receipt);
  EXPECT_EQ((*r.receipt)["exit_code"], 3);
  EXPECT_FALSE(parse_record(R"({"format":"cordon-manifest","version":3})").manifest);
}

TEST_F(Records, AStateFileSaysRunningWhileLockedAndCrashedAfter) {
  const std::string id = "20261201T131821Z-00000001";
  EXPECT_EQ(probe_live_state(dir_, id), LiveState::None);
  {
    StateFile state(dir_, id);
    EXPECT_EQ(probe_live_state(dir_, id), LiveState::Running);
    EXPECT_FALSE(lock_if_launcher_gone(dir_, id).valid());
  }  // the launcher "dies": its descriptor and lock go
  EXPECT_EQ(probe_live_state(dir_, id), LiveState::Crashed);
  EXPECT_TRUE(lock_if_launcher_gone(dir_, id).valid());
}

TEST_F(Records, AReceiptFailureIsNotedInPlace) {
  const std::string id = "20261201T131821Z-00000002";
  {
    StateFile state(dir_, id);
    state.note_receipt_failed(7, "appending the receipt: No space left on device");
  }
  ReceiptNote note;
  EXPECT_EQ(probe_live_state(dir_, id, &note), LiveState::ReceiptFailed);
  EXPECT_EQ(note.exit_code, 7);
  EXPECT_EQ(note.cause, "appending the receipt: No space left on device");
  EXPECT_EQ(fs::file_size(state_file_path(dir_, id)), 512u);  // written once, at full size
}

// A note whose exit status is no number that fits was not written by cordon (atoll was
// undefined on it): not a note, so the session counts as crashed and the sweep closes it.
TEST_F(Records, ANoteWithAnExitStatusOutOfRangeIsNoNote) {
  for (const char* text : {"receipt-failed 99999999999999999999999 cause\n", "receipt-failed x7 cause\n",
                           "receipt-failed  cause\n", "receipt-failed 7x cause\n"}) {
    const std::string path = dir_ + "/note";
    std::ofstream(path, std::ios::trunc) << text;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    EXPECT_FALSE(receipt_failed_note(fd)) << text;
    ::close(fd);
  }
  const std::string path = dir_ + "/note";
  std::ofstream(path, std::ios::trunc) << "receipt-failed 137 appending: No space left on device\n";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  std::optional<ReceiptNote> note = receipt_failed_note(fd);
  ::close(fd);
  ASSERT_TRUE(note);
  EXPECT_EQ(note->exit_code, 137);
  EXPECT_EQ(note->cause, "appending: No space left on device");
}

TEST_F(Records, AFifoInPlaceOfAStateFileIsUnreadableNeverRunning) {
  const std::string id = "20261201T131821Z-00000003";
  fs::create_directories(live_dir(dir_));
  ASSERT_EQ(::mkfifo(state_file_path(dir_, id).c_str(), 0600), 0);
  EXPECT_EQ(probe_live_state(dir_, id), LiveState::Unreadable);
  EXPECT_FALSE(lock_if_launcher_gone(dir_, id).valid());
}

TEST_F(Records, PruneKeepsTheNewestAndEverySessionWithAStateFile) {
  for (int i = 0; i < 5; ++i) write("20261201T13182" + std::to_string(i) + "Z-0000000" + std::to_string(i) + ".json", kManifest);
  fs::create_directories(live_dir(dir_));
  write("live/20261201T131820Z-00000000.state", "running");  // the oldest is still running
  std::vector<std::string> removed = prune_records(dir_, 2, 0);
  EXPECT_EQ(removed, (std::vector<std::string>{"20261201T131821Z-00000001", "20261201T131822Z-00000002",
                                               "20261201T131823Z-00000003"}));
  EXPECT_EQ(session_ids(dir_, ".json").size(), 2u);  // the running one counts towards keep
}

TEST_F(Records, PruneRemovesRecordsOlderThanKeepDays) {
  const std::string old_id = utc_stamp_at(std::time(nullptr) - 10 * 86400) + "-0000000a";
  const std::string new_id = utc_stamp_at(std::time(nullptr)) + "-0000000b";
  write(old_id + ".json", kManifest);
  write(new_id + ".json", kManifest);
  EXPECT_EQ(prune_records(dir_, 1000, 30), std::vector<std::string>{});
  EXPECT_EQ(prune_records(dir_, 1000, 7), std::vector<std::string>{old_id});
}

TEST_F(Records, ASweepClosesACrashAndLeavesARunningSessionAlone) {
  const std::string crashed = "20261201T131821Z-0000000c", running = "20261201T131822Z-0000000d";
  write(crashed + ".json", std::string(kManifest) + "\n");
  write(running + ".json", std::string(kManifest) + "\n");
  { StateFile gone(dir_, crashed); }
  StateFile alive(dir_, running);
  EXPECT_EQ(crashed_session_ids(dir_), std::vector<std::string>{crashed});
  SweepReport report = sweep_crashed_sessions(dir_);
  EXPECT_EQ(report.swept, 1) << (report.lines.empty() ? "" : report.lines[0]);
  ParsedRecord closed = parse_record(*read_record(dir_ + "/" + crashed + ".json", nullptr));
  ASSERT_TRUE(closed.receipt);
  EXPECT_TRUE((*closed.receipt)["crashed"].is_object());
  EXPECT_EQ(probe_live_state(dir_, crashed), LiveState::None);
  EXPECT_EQ(probe_live_state(dir_, running), LiveState::Running);
  EXPECT_FALSE(parse_record(*read_record(dir_ + "/" + running + ".json", nullptr)).receipt);
}

TEST(TerminalSafe, EscapesControlsAndBadBytesKeepsText) {
  EXPECT_EQ(terminal_safe("plain /ws/päth"), "plain /ws/päth");
  EXPECT_EQ(terminal_safe("a\x1b]52;c;SGVsbG8=\x07z"), "a\\x1b]52;c;SGVsbG8=\\x07z");
  EXPECT_EQ(terminal_safe("\xc2\x9b" "31m"), "\\xc2\\x9b31m");  // C1 CSI
  EXPECT_EQ(terminal_safe("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(terminal_safe("line\nnext\r"), "line\\x0anext\\x0d");
  EXPECT_EQ(terminal_safe("\xe2\x82\xac"), "\xe2\x82\xac");  // €
}

TEST_F(Records, LaunchesPruneAtMostHourly) {
  fs::create_directories(dir_ + "/sessions");
  EXPECT_TRUE(prune_due(dir_ + "/sessions"));
  EXPECT_FALSE(prune_due(dir_ + "/sessions"));
  struct timespec long_ago[2] = {{0, UTIME_OMIT}, {std::time(nullptr) - kPruneIntervalSeconds - 1, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (dir_ + "/last-prune").c_str(), long_ago, 0), 0);
  EXPECT_TRUE(prune_due(dir_ + "/sessions"));
}

}  // namespace
}  // namespace cordon

#include "launcher/record/manifest.h"

namespace cordon {
namespace {

// What a session plants decides how many audit items there are (100,000 hooks with 4 KiB
// names): the record keeps a bounded few and counts the rest exactly. Before the bound every
// item was written (~400 MB here) and the record reader called the record unreadable.
TEST(AuditRecord, ManyItemsAreBoundedAndCounted) {
  FootholdAudit audit;
  for (int i = 0; i < 100000; ++i)
    audit.items.push_back({"hook", "/ws/.git/hooks/" + std::string(4000, 'h') + std::to_string(i),
                           "/ws/.git/cordon-quarantine/S/" + std::to_string(i), ""});
  Json j = workspace_audit_json(audit);
  EXPECT_EQ(j["items"].size() + j["items_dropped"].get<size_t>(), 100000u);
  EXPECT_LT(j.dump().size(), kMaxRecordBytes / 4) << j.dump().size();
  EXPECT_EQ(workspace_audit_json(FootholdAudit{})["items_dropped"], 0);
}

}  // namespace
}  // namespace cordon
