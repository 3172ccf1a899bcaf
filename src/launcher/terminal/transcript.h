// A session's transcript ([records] transcript): what the sandbox wrote to its terminal or its
// stdout and stderr, raw, as the launcher relayed it, kept beside the session's record
// (SESSIONS/ID.transcript, 0600), capped, with the time of each chunk. Raw bytes are untrusted
// input: they are never shown raw on a terminal (`cordon sessions transcript` puts them through
// the output filter; `--raw` only to a pipe or file).
//
// Format (docs/schemas.md "cordon-transcript"): one JSON header line, then frames
//   "<microseconds since start> <stream> <length>\n" <length raw bytes> "\n"
// with stream "o" (the private terminal), "1" (stdout) or "2" (stderr), and a last frame of
// stream "e" whose bytes are a JSON object {"recorded": N, "dropped": M} (absent when the
// launcher died first). Past the cap, chunks are dropped and counted, never cut.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/unique_fd.h"

namespace cordon::terminal {

inline constexpr const char* kTranscriptFormat = "cordon-transcript";
inline constexpr int kTranscriptVersion = 1;

class Transcript {
 public:
  // Creates `path` (it must not exist). Throws cordon::Error with what and the fix.
  Transcript(const std::string& path, const std::string& session_id, uint64_t cap_bytes);
  Transcript(const Transcript&) = delete;
  Transcript& operator=(const Transcript&) = delete;
  ~Transcript();

  // One chunk the sandbox wrote on `stream` ('o', '1', '2').
  void record(char stream, std::string_view bytes);
  // The end frame; called once (the destructor does it if nobody did).
  void finish();

  uint64_t recorded() const { return recorded_; }
  uint64_t dropped() const { return dropped_; }
  const std::string& path() const { return path_; }

 private:
  void write_frame(char stream, std::string_view bytes);

  std::string path_;
  UniqueFd fd_;
  uint64_t cap_;
  uint64_t recorded_ = 0, dropped_ = 0;
  bool finished_ = false;
  bool failed_ = false;  // a write failed (a full disk): the rest is dropped and counted
  std::chrono::steady_clock::time_point started_;
};

// A transcript read back.
struct TranscriptFrame {
  uint64_t micros = 0;
  char stream = 'o';
  std::string bytes;
};
struct TranscriptFile {
  std::string session;
  std::vector<TranscriptFrame> frames;        // the chunks, in order (not the end frame)
  std::optional<uint64_t> recorded, dropped;  // from the end frame (absent: the launcher died)
  std::string problem;                        // a frame that does not parse: reading stopped there
};

// Parses a transcript's text; bounded by the text (each length is checked against what is left).
TranscriptFile parse_transcript(std::string_view text);

}  // namespace cordon::terminal
