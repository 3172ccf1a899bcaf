// [records] export (record/record_export.h): a line goes whole or not at all, a drop is counted
// and the count travels in the next line, and nothing waits on a collector that does not read.
#include "launcher/record/record_export.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "common/unique_fd.h"
#include "scratch_dir.h"

namespace cordon {
namespace {

const Json kManifest = {{"format", "cordon-manifest"}, {"version", 2}, {"session", "s1"}};

RecordExportTarget file_target(const std::string& path) {
  RecordExportTarget t;
  t.kind = RecordExportTarget::Kind::File;
  t.path = t.spelled = path;
  return t;
}

std::string read_all(int fd) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  return text;
}

TEST(RecordExport, ALineSaysWhatItIsAndCarriesTheRecordLine) {
  const Json line = export_line("s1", kManifest, 3, {{"host", "h"}, {"pod", nullptr}});
  EXPECT_EQ(line["format"], kExportFormat);
  EXPECT_EQ(line["version"], kExportVersion);
  EXPECT_EQ(line["session"], "s1");
  EXPECT_EQ(line["kind"], "cordon-manifest");
  EXPECT_EQ(line["host"], "h");
  EXPECT_TRUE(line["pod"].is_null());
  EXPECT_EQ(line["dropped_before"], 3);
  EXPECT_EQ(line["line"], kManifest);
}

TEST(RecordExport, AFileIsAppendedOneLineASend) {
  cordon::testing::ScratchDir dir("/tmp/cordon-export-");
  const RecordExport exporter(file_target(dir.path() + "/out.jsonl"), dir.path());
  EXPECT_EQ(exporter.send("s1", kManifest), "");
  EXPECT_EQ(exporter.send("s1", {{"format", "cordon-receipt"}}), "");
  UniqueFd fd(::open((dir.path() + "/out.jsonl").c_str(), O_RDONLY | O_CLOEXEC));
  const std::string text = read_all(fd.get());
  ASSERT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
  EXPECT_EQ(exporter.dropped(), 0);
}

// A FIFO whose reader has fallen behind: the line is dropped whole (the reader never sees half
// of one), counted, and the next line that goes says how many went missing before it.
TEST(RecordExport, AFullPipeDropsTheWholeLineAndTheNextLineCountsIt) {
  cordon::testing::ScratchDir dir("/tmp/cordon-export-");
  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  UniqueFd reader(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  UniqueFd filler(::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
  ASSERT_TRUE(reader.valid() && filler.valid());
  const std::string block(4096, 'x');
  while (::write(filler.get(), block.data(), block.size()) > 0) {
  }
  const RecordExport exporter(file_target(fifo), dir.path());
  const std::string why = exporter.send("s1", kManifest);
  EXPECT_NE(why.find("bytes free"), std::string::npos) << why;
  EXPECT_EQ(exporter.dropped(), 1);
  while (::read(reader.get(), const_cast<char*>(block.data()), block.size()) > 0) {
  }  // the collector catches up
  EXPECT_EQ(exporter.send("s1", kManifest), "");
  const Json got = parse_json(read_all(reader.get()), nullptr).value_or(Json());
  EXPECT_EQ(got["dropped_before"], 1) << got.dump();
}

TEST(RecordExport, AFifoNobodyReadsIsADropNotAWait) {
  cordon::testing::ScratchDir dir("/tmp/cordon-export-");
  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const RecordExport exporter(file_target(fifo), dir.path());
  EXPECT_NE(exporter.send("s1", kManifest).find("no collector reads"), std::string::npos);
  EXPECT_EQ(exporter.dropped(), 1);
}

TEST(RecordExport, OffSendsNothingAndCountsNothing) {
  cordon::testing::ScratchDir dir("/tmp/cordon-export-");
  const RecordExport exporter(RecordExportTarget{}, dir.path());
  EXPECT_FALSE(exporter.enabled());
  EXPECT_EQ(exporter.send("s1", kManifest), "");
  EXPECT_EQ(exporter.dropped(), 0);
}

}  // namespace
}  // namespace cordon
