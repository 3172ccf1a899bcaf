// The output filter on the sandbox's stdout and stderr when they are not a terminal: a pipe
// (`cordon run -- agent | tee log`) or a file. Off by default, so binary output passes
// byte for byte; on with [terminal] filter_pipes = true or `cordon run --filter-output`. Each
// such stream of the sandbox becomes a pipe of the launcher's, whose bytes go through the same
// OutputFilter as the private terminal's (with [terminal] pass) to the launcher's own stream.
// Like the relay it never blocks the supervision: bounded buffers, writes of at most PIPE_BUF
// when the destination polls writable, reading stops while a buffer is full.
#pragma once

#include <poll.h>

#include <array>
#include <string>

#include "common/unique_fd.h"
#include "launcher/terminal/output_filter.h"
#include "launcher/terminal/terminal_plan.h"
#include "launcher/terminal/transcript.h"

namespace cordon::terminal {

// stdout and stderr, each a pipe read and a destination written.
inline constexpr size_t kOutputPipesPollFds = 4;

class OutputPipes {
 public:
  // A pipe for each of fds 1 and 2 in plan.filter_fds (filtered) or plan.record_fds (passed
  // unchanged) that the launcher has open; each chunk also goes to `transcript` when given.
  // Throws cordon::Error.
  explicit OutputPipes(const TerminalPlan& plan, Transcript* transcript = nullptr);
  OutputPipes(const OutputPipes&) = delete;
  OutputPipes& operator=(const OutputPipes&) = delete;

  // Whether any stream is filtered.
  bool active() const;
  // In the launcher's forked child (async-signal-safe): the filtered streams become the pipes.
  bool attach_in_child() const;
  // In the launcher after the fork: its copies of the pipes' write ends close, so the end of
  // the sandbox is the end of the pipes.
  void start();

  // Poll integration (kOutputPipesPollFds entries, fd -1 when not wanted now).
  void poll_fds(pollfd* fds) const;
  void on_ready(const pollfd* fds);

  // The sandbox ended: the rest of its output (bounded in time), the filters' ends; what the
  // filters dropped, per class, both streams together.
  std::array<uint64_t, kTerminalClassCount> finish();

 private:
  struct Stream {
    int target = -1;       // the launcher's own fd (1 or 2)
    UniqueFd read, write;  // the pipe; write is the sandbox's side
    std::string pending;   // filtered, not yet written
    bool open = false;     // the pipe has not reached end-of-file
    bool target_gone = false;
    bool filtered = true;  // false: only kept by the transcript, passed unchanged
    OutputFilter filter;
    explicit Stream(TerminalPassSet pass) : filter(pass) {}
  };
  void read_stream(Stream& s);
  Transcript* transcript_ = nullptr;
  static void write_stream(Stream& s);

  std::array<Stream, 2> streams_;
};

}  // namespace cordon::terminal
