// The state kept next to the session records: the last verify and the last allowlist
// session's proxy counts, each one line, replaced whole.
#include "launcher/inputs/state_dirs.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace cordon {
namespace {

namespace fs = std::filesystem;

class StateDirs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cordon-state-dirs-" + std::to_string(::getpid()));
    fs::create_directories(root_ / "sessions");
    sessions_ = (root_ / "sessions").string();
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
  std::string sessions_;
};

TEST_F(StateDirs, LastEgressIsTheNewestSessionsLineAndLeavesNoPartFile) {
  EXPECT_EQ(read_last_egress(sessions_), "");
  record_last_egress(sessions_, "s1", "0 connection(s) allowed, 1 denied (a.test:443)");
  record_last_egress(sessions_, "s2", "2 connection(s) allowed, 0 denied");
  std::string line = read_last_egress(sessions_);
  EXPECT_EQ(line.rfind("2 connection(s) allowed, 0 denied; session s2, ended 20", 0), 0u) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  int files = 0;
  for (const auto& e : fs::directory_iterator(root_)) files += e.path().filename() != "sessions";
  EXPECT_EQ(files, 1) << "only last-egress, no .part file";
}

TEST_F(StateDirs, LastVerifyIsTheNewestOutcome) {
  EXPECT_EQ(read_last_verify(sessions_), "");
  record_last_verify(sessions_, 0);
  EXPECT_EQ(read_last_verify(sessions_).rfind("PASS at 20", 0), 0u) << read_last_verify(sessions_);
  record_last_verify(sessions_, 3);
  EXPECT_EQ(read_last_verify(sessions_).rfind("FAIL (3) at 20", 0), 0u) << read_last_verify(sessions_);
}

TEST_F(StateDirs, AnUnwritableStateDirectoryRecordsNothingAndDoesNotThrow) {
  record_last_egress(sessions_ + "/missing/deeper", "s1", "1 connection(s) allowed, 0 denied");
  EXPECT_EQ(read_last_egress(sessions_ + "/missing/deeper"), "");
}

}  // namespace
}  // namespace cordon
