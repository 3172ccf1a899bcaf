#include "launcher/commands/transcript_command.h"

#include <unistd.h>

#include <cerrno>

#include "common/error.h"
#include "common/print.h"
#include "common/text.h"
#include "launcher/record/record_file.h"
#include "launcher/terminal/output_filter.h"
#include "launcher/terminal/transcript.h"

namespace cordon {
namespace {

// Far above any cap a configuration sets by accident, far below what would exhaust memory.
constexpr size_t kTranscriptReadLimit = size_t{1} << 31;

// Output in pieces: a large transcript is not held twice.
void write_out(std::string& out, bool force) {
  if (out.size() < (size_t{1} << 16) && !force) return;
  const bool written = print_sandbox_output(out);
  out.clear();
  if (!written) throw Error("writing the transcript to stdout failed", "", kExitLaunchRefused);
}

}  // namespace

int print_transcript(const std::string& sessions_dir, const std::string& id, const TerminalPassSet& pass, bool raw) {
  require_session_id(id);
  if (raw && ::isatty(STDOUT_FILENO) == 1)
    throw Error(
        "refusing to write a transcript's raw bytes to a terminal: they are what the sandbox wrote, escape "
        "sequences included",
        "redirect or pipe it (cordon sessions transcript --raw ID > file); without --raw it is shown through "
        "the output filter",
        kExitConfigError);
  const std::string path = transcript_path(sessions_dir, id);
  errno = 0;
  std::optional<std::string> text = read_regular_file(path, kTranscriptReadLimit);
  if (!text)
    throw Error("session " + id + " has no readable transcript (" + terminal_safe(errno_text(path, errno)) + ")",
                "[records] transcript was off for that session, or its record was pruned; turn it on for the sessions "
                "to come",
                kExitConfigError);
  const terminal::TranscriptFile file = terminal::parse_transcript(*text);
  OutputFilter filter(pass);
  std::string out;
  for (const terminal::TranscriptFrame& frame : file.frames) {
    if (raw) out += frame.bytes;
    else filter.feed(frame.bytes, out);
    write_out(out, false);
  }
  if (!raw) {
    filter.finish(out);
    out += terminal_reset_sequence(filter.modes());
  }
  write_out(out, true);
  std::string summary = "cordon: transcript of " + id + ": " + std::to_string(file.frames.size()) + " chunk(s)";
  if (file.recorded) summary += ", " + std::to_string(*file.recorded) + " bytes kept";
  if (file.dropped && *file.dropped) summary += ", " + std::to_string(*file.dropped) + " bytes dropped past its cap";
  if (!file.recorded) summary += "; no end frame (its launcher died, or it is still running)";
  if (!file.problem.empty()) summary += "; read up to " + file.problem;
  if (!raw) summary += "; shown through the output filter";
  print_err(terminal_safe(summary) + "\n");
  return file.problem.empty() || !file.frames.empty() ? 0 : kExitLaunchRefused;
}

}  // namespace cordon
