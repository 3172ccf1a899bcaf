// The transcript (terminal/transcript.h): chunks kept whole with their stream and time, the cap
// drops whole chunks and counts their bytes, the end frame says both, and a file cut by a
// killed launcher reads up to the cut.
#include "launcher/terminal/transcript.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/text.h"
#include "scratch_dir.h"

namespace cordon::terminal {
namespace {

TEST(Transcript, ChunksComeBackWithTheirStreamsInOrder) {
  cordon::testing::ScratchDir dir("/tmp/cordon-transcript-");
  const std::string path = dir.path() + "/s.transcript";
  {
    Transcript t(path, "s", 1 << 20);
    t.record('o', std::string("a\0\x1b]52;c;x\x07\n", 12));
    t.record('1', "out");
    t.record('2', "");  // nothing: no frame
    t.record('2', "err\n\n");
  }
  const TranscriptFile f = parse_transcript(read_text_file(path));
  EXPECT_EQ(f.problem, "");
  EXPECT_EQ(f.session, "s");
  ASSERT_EQ(f.frames.size(), 3u);
  EXPECT_EQ(f.frames[0].stream, 'o');
  EXPECT_EQ(f.frames[0].bytes, std::string("a\0\x1b]52;c;x\x07\n", 12));
  EXPECT_EQ(f.frames[1].bytes, "out");
  EXPECT_EQ(f.frames[2].stream, '2');
  EXPECT_LE(f.frames[0].micros, f.frames[2].micros);
  EXPECT_EQ(f.recorded, 20u);
  EXPECT_EQ(f.dropped, 0u);
}

TEST(Transcript, PastTheCapWholeChunksAreDroppedAndCounted) {
  cordon::testing::ScratchDir dir("/tmp/cordon-transcript-");
  const std::string path = dir.path() + "/s.transcript";
  Transcript t(path, "s", 10);
  t.record('o', "123456");
  t.record('o', "789012");  // would pass the cap: dropped whole
  t.record('o', "3456");    // fits exactly
  t.finish();
  EXPECT_EQ(t.recorded(), 10u);
  EXPECT_EQ(t.dropped(), 6u);
  const TranscriptFile f = parse_transcript(read_text_file(path));
  ASSERT_EQ(f.frames.size(), 2u);
  EXPECT_EQ(f.frames[1].bytes, "3456");
  EXPECT_EQ(f.dropped, 6u);
}

TEST(Transcript, AFileCutMidFrameReadsUpToTheCut) {
  cordon::testing::ScratchDir dir("/tmp/cordon-transcript-");
  const std::string path = dir.path() + "/s.transcript";
  {
    Transcript t(path, "s", 1 << 20);
    t.record('o', "whole");
    t.record('o', "cut here");
  }
  std::string text = read_text_file(path);
  const std::string cut = text.substr(0, text.find("cut here") + 3);  // the launcher died mid-write
  const TranscriptFile f = parse_transcript(cut);
  ASSERT_EQ(f.frames.size(), 1u);
  EXPECT_EQ(f.frames[0].bytes, "whole");
  EXPECT_FALSE(f.recorded.has_value());
  EXPECT_NE(f.problem.find("cut"), std::string::npos);
  // A length that claims more than the file holds is a cut too, never a read past the end.
  const std::string header = text.substr(0, text.find('\n') + 1);
  EXPECT_NE(parse_transcript(header + "1 o 99999999999\nabc\n").problem.find("cut"), std::string::npos);
  EXPECT_NE(parse_transcript(header + "1 x 1\na\n").problem.find("unknown stream"), std::string::npos);
  EXPECT_NE(parse_transcript("{\"format\":\"other\"}\n").problem.find("not a cordon-transcript"), std::string::npos);
}

TEST(Transcript, AnExistingFileIsNeverWrittenOver) {
  cordon::testing::ScratchDir dir("/tmp/cordon-transcript-");
  const std::string path = dir.path() + "/s.transcript";
  { Transcript t(path, "s", 100); }
  EXPECT_THROW(Transcript again(path, "s", 100), cordon::Error);
}

}  // namespace
}  // namespace cordon::terminal
