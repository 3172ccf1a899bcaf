// `cordon sessions transcript ID [--raw]`: a session's transcript ([records] transcript,
// terminal/transcript.h) shown through the same output filter as the live terminal ([terminal]
// pass), so what the sandbox wrote cannot drive the reader's terminal now either; `--raw` gives
// the bytes as the sandbox wrote them, only to a pipe or a file.
#pragma once

#include <string>

#include "common/terminal_classes.h"

namespace cordon {

// Writes the transcript to stdout; a summary (bytes kept, dropped, cut) on stderr. Throws
// cordon::Error (exit 2) for an invalid id, a session without a transcript, or --raw to a
// terminal.
int print_transcript(const std::string& sessions_dir, const std::string& id, const TerminalPassSet& pass, bool raw);

}  // namespace cordon
