#include "launcher/terminal/transcript.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "common/error.h"
#include "common/json_codec.h"
#include "common/text.h"
#include "common/utc_time.h"

namespace cordon::terminal {
Transcript::Transcript(const std::string& path, const std::string& session_id, uint64_t cap_bytes)
    : path_(path), cap_(cap_bytes), started_(std::chrono::steady_clock::now()) {
  fd_ = UniqueFd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd_.valid())
    throw Error(errno_text("creating the transcript " + path, errno),
                "free space in (or fix the permissions of) the sessions directory, or set [records] transcript = "
                "false");
  const Json header = {{"format", kTranscriptFormat},
                       {"version", kTranscriptVersion},
                       {"session", session_id},
                       {"started", utc_now()},
                       {"cap_bytes", cap_bytes}};
  const std::string line = dump_line(header) + "\n";
  if (::write(fd_.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size())) failed_ = true;
}

Transcript::~Transcript() { finish(); }

void Transcript::write_frame(char stream, std::string_view bytes) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started_)
                          .count();
  std::string frame = std::to_string(micros) + " " + stream + " " + std::to_string(bytes.size()) + "\n";
  frame.append(bytes);
  frame += '\n';
  if (!write_all(fd_.get(), frame, "the transcript").empty()) failed_ = true;
}

void Transcript::record(char stream, std::string_view bytes) {
  if (bytes.empty()) return;
  // A chunk goes whole or not at all: past the cap (or after a failed write) it is counted.
  if (failed_ || finished_ || recorded_ + bytes.size() > cap_) {
    dropped_ += bytes.size();
    return;
  }
  write_frame(stream, bytes);
  if (failed_) dropped_ += bytes.size();
  else recorded_ += bytes.size();
}

void Transcript::finish() {
  if (finished_ || !fd_.valid()) return;
  finished_ = true;
  write_frame('e', dump_line({{"recorded", recorded_}, {"dropped", dropped_}}));
  fd_.reset();
}

TranscriptFile parse_transcript(std::string_view text) {
  TranscriptFile out;
  const size_t header_end = text.find('\n');
  std::optional<Json> header = header_end == std::string_view::npos
                                   ? std::nullopt
                                   : parse_json(std::string(text.substr(0, header_end)), nullptr);
  if (!header || !header->is_object() || header->value("format", "") != kTranscriptFormat ||
      header->value("version", 0) != kTranscriptVersion) {
    out.problem = "not a cordon-transcript of version 1";
    return out;
  }
  out.session = header->value("session", "");
  size_t at = header_end + 1;
  while (at < text.size()) {
    const size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) {
      out.problem = "a frame's header is cut (the launcher died while writing it)";
      return out;
    }
    const std::string_view line = text.substr(at, eol - at);
    const size_t s1 = line.find(' '), s2 = line.find(' ', s1 == std::string_view::npos ? s1 : s1 + 1);
    std::optional<unsigned long long> micros, length;
    if (s1 != std::string_view::npos && s2 == s1 + 2) {
      micros = parse_unsigned(line.substr(0, s1));
      length = parse_unsigned(line.substr(s2 + 1));
    }
    if (!micros || !length) {
      out.problem = "a frame header that does not parse";
      return out;
    }
    const char stream = line[s1 + 1];
    if (*length > text.size() - eol - 1 || text.size() - eol - 1 - *length < 1 || text[eol + 1 + *length] != '\n') {
      out.problem = "a frame is cut (the launcher died while writing it)";
      return out;
    }
    const std::string_view bytes = text.substr(eol + 1, *length);
    at = eol + 1 + *length + 1;
    if (stream == 'e') {
      std::optional<Json> end = parse_json(std::string(bytes), nullptr);
      if (end && end->is_object()) {
        if ((*end)["recorded"].is_number_unsigned()) out.recorded = (*end)["recorded"].get<uint64_t>();
        if ((*end)["dropped"].is_number_unsigned()) out.dropped = (*end)["dropped"].get<uint64_t>();
      }
      continue;
    }
    if (stream != 'o' && stream != '1' && stream != '2') {
      out.problem = "a frame of an unknown stream";
      return out;
    }
    out.frames.push_back({*micros, stream, std::string(bytes)});
  }
  return out;
}

}  // namespace cordon::terminal
