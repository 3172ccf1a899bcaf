#include "launcher/terminal/output_pipes.h"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "common/error.h"

namespace cordon::terminal {
namespace {

// Past this much filtered output waiting for a slow reader, the pipe is not read.
constexpr size_t kBufferBytes = size_t{64} * 1024;
constexpr size_t kReadBytes = size_t{16} * 1024;

}  // namespace

OutputPipes::OutputPipes(const TerminalPlan& plan, Transcript* transcript)
    : streams_{Stream(plan.pass), Stream(plan.pass)}, transcript_(transcript) {
  for (int fd = 1; fd <= 2; ++fd) {
    Stream& s = streams_[static_cast<size_t>(fd - 1)];
    // A stream the launcher does not have open stays as it is (bwrap gives the sandbox none).
    const unsigned bit = 1U << fd;
    if (!((plan.filter_fds | (transcript ? plan.record_fds : 0U)) & bit) || ::fcntl(fd, F_GETFD) < 0) continue;
    s.filtered = (plan.filter_fds & bit) != 0;
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) throw Error(errno_text("pipe (the output filter)", errno));
    s.read = UniqueFd(ends[0]);
    s.write = UniqueFd(ends[1]);
    ::fcntl(s.read.get(), F_SETFL, ::fcntl(s.read.get(), F_GETFL) | O_NONBLOCK);
    s.target = fd;
    s.open = true;
  }
}

bool OutputPipes::active() const { return streams_[0].open || streams_[1].open; }

bool OutputPipes::attach_in_child() const {
  for (const Stream& s : streams_)
    if (s.write.valid() && ::dup2(s.write.get(), s.target) < 0) return false;
  return true;
}

void OutputPipes::start() {
  for (Stream& s : streams_) s.write.reset();
}

void OutputPipes::poll_fds(pollfd* fds) const {
  for (size_t i = 0; i < streams_.size(); ++i) {
    const Stream& s = streams_[i];
    const bool reading = s.open && s.pending.size() < kBufferBytes;
    const bool writing = !s.pending.empty() && !s.target_gone;
    fds[2 * i] = pollfd{reading ? s.read.get() : -1, POLLIN, 0};
    fds[2 * i + 1] = pollfd{writing ? s.target : -1, POLLOUT, 0};
  }
}

void OutputPipes::on_ready(const pollfd* fds) {
  for (size_t i = 0; i < streams_.size(); ++i) {
    Stream& s = streams_[i];
    if (fds[2 * i].revents & (POLLIN | POLLHUP | POLLERR)) read_stream(s);
    if (fds[2 * i + 1].revents & (POLLOUT | POLLERR | POLLHUP)) write_stream(s);
  }
}

void OutputPipes::read_stream(Stream& s) {
  char buffer[kReadBytes];
  const ssize_t n = ::read(s.read.get(), buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {  // every writer (the sandbox's processes) is gone
    s.open = false;
    if (s.filtered) s.filter.finish(s.pending);
    return;
  }
  const std::string_view chunk(buffer, static_cast<size_t>(n));
  if (transcript_) transcript_->record(s.target == 1 ? '1' : '2', chunk);
  if (s.filtered) s.filter.feed(chunk, s.pending);
  else s.pending.append(chunk);
  if (s.target_gone) s.pending.clear();
}

// One write of at most PIPE_BUF after the destination polled writable: a pipe with room for
// one takes it whole without blocking, whatever its file status flags (they are the
// launcher's caller's too, and stay as they are).
void OutputPipes::write_stream(Stream& s) {
  if (s.pending.empty() || s.target_gone) return;
  const size_t size = s.pending.size() < PIPE_BUF ? s.pending.size() : PIPE_BUF;
  ssize_t n;
  do n = ::write(s.target, s.pending.data(), size);
  while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN) return;
  if (n <= 0) {  // the reader went away (EPIPE): the rest is discarded, the session goes on
    s.target_gone = true;
    s.pending.clear();
    return;
  }
  s.pending.erase(0, static_cast<size_t>(n));
}

std::array<uint64_t, kTerminalClassCount> OutputPipes::finish() {
  // Bounded: a process that somehow kept a write end open cannot hold the launcher here.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(2000);
  for (;;) {
    bool busy = false;
    for (const Stream& s : streams_) busy = busy || s.open || (!s.pending.empty() && !s.target_gone);
    if (!busy || std::chrono::steady_clock::now() >= deadline) break;
    pollfd fds[kOutputPipesPollFds];
    poll_fds(fds);
    if (::poll(fds, kOutputPipesPollFds, 20) > 0) on_ready(fds);
  }
  for (Stream& s : streams_) {
    if (s.open && s.filtered) s.filter.finish(s.pending);
    s.open = false;
    s.read.reset();
    // The modes the filter let through (an alternate screen, a hidden cursor) are undone, as
    // the relay undoes them: a `| tee` shows the stream on a terminal after all.
    if (s.target >= 0 && !s.target_gone && s.filter.modes() != 0) {
      s.pending += terminal_reset_sequence(s.filter.modes());
      while (!s.pending.empty() && !s.target_gone) write_stream(s);
    }
  }
  std::array<uint64_t, kTerminalClassCount> dropped{};
  for (const Stream& s : streams_)
    for (size_t i = 0; i < kTerminalClassCount; ++i) dropped[i] += s.filter.dropped()[i];
  return dropped;
}

}  // namespace cordon::terminal
