#include "launcher/record/record_export.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "common/error.h"
#include "common/text.h"
#include "common/unique_fd.h"
#include "common/utc_time.h"

namespace cordon {
namespace {

using Kind = RecordExportTarget::Kind;

// A line the stream took in part (a pipe or socket that filled as it was written) gets this
// long, in all, to take the rest; then the stream is given up. The session never waits longer.
constexpr int kFinishMs = 100;

// Writes the rest of `line` from `done`, waiting for room at most kFinishMs in all.
std::string finish_line(int fd, const std::string& line, size_t done, bool socket) {
  int waited = 0;
  while (done < line.size()) {
    const ssize_t n = socket ? ::send(fd, line.data() + done, line.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT)
                             : ::write(fd, line.data() + done, line.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) return errno_text("writing the line", errno);
    if (waited >= kFinishMs) return "the collector took part of the line and no more within 100 ms";
    pollfd p{fd, POLLOUT, 0};
    ::poll(&p, 1, 10);
    waited += 10;
  }
  return "";
}

// A pipe or FIFO: the line goes only when the pipe has room for all of it (a collector that
// has fallen behind loses whole lines, never half of one).
std::string send_to_pipe(int fd, const std::string& line) {
  int queued = 0;
  const int size = ::fcntl(fd, F_GETPIPE_SZ);
  if (size > 0 && ::ioctl(fd, FIONREAD, &queued) == 0 && static_cast<size_t>(size - queued) < line.size())
    return "the collector's pipe has " + std::to_string(size - queued) + " bytes free, the line needs " +
           std::to_string(line.size());
  const ssize_t n = ::write(fd, line.data(), line.size());
  if (n < 0) return errno == EAGAIN ? "the collector's pipe is full" : errno_text("writing the line", errno);
  return finish_line(fd, line, static_cast<size_t>(n), false);
}

std::string send_to_descriptor(int fd, const std::string& line) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno_text("fstat", errno);
  if (S_ISFIFO(st.st_mode)) return send_to_pipe(fd, line);
  if (S_ISSOCK(st.st_mode)) {
    const ssize_t n = ::send(fd, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) return errno == EAGAIN ? "the collector's socket is full" : errno_text("sending the line", errno);
    return finish_line(fd, line, static_cast<size_t>(n), true);
  }
  // A regular file (appended in one write) or a terminal.
  const ssize_t n = ::write(fd, line.data(), line.size());
  if (n < 0) return errno == EAGAIN ? "the stream is full" : errno_text("writing the line", errno);
  return finish_line(fd, line, static_cast<size_t>(n), false);
}

std::string send_to_file(const std::string& path, const std::string& line) {
  // O_NONBLOCK: a FIFO nobody reads fails at once (ENXIO) instead of waiting for a reader.
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600));
  if (!fd.valid()) return errno == ENXIO ? "no collector reads the FIFO " + path : errno_text("opening " + path, errno);
  return send_to_descriptor(fd.get(), line);
}

std::string send_to_socket(const std::string& path, const std::string& line) {
  sockaddr_un at{};
  at.sun_family = AF_UNIX;
  std::memcpy(at.sun_path, path.data(), std::min(path.size(), sizeof at.sun_path - 1));
  // A stream socket (a collector's listener) first; a datagram socket gets the line as one datagram.
  for (int type : {SOCK_STREAM, SOCK_DGRAM}) {
    UniqueFd fd(::socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd.valid()) return errno_text("socket", errno);
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0) {
      if (errno == EPROTOTYPE && type == SOCK_STREAM) continue;
      if (errno == EAGAIN) return "the collector's socket " + path + " accepts no more connections now";
      return errno_text("connecting to " + path, errno);
    }
    return send_to_descriptor(fd.get(), line);
  }
  return "connecting to " + path + ": neither a stream nor a datagram socket";
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

Json export_origin() {
  utsname u{};
  Json origin = {{"host", ::uname(&u) == 0 ? bytes_json(u.nodename) : Json(nullptr)}, {"pod", nullptr}};
  const std::string ns = env_or_empty("CORDON_POD_NAMESPACE"), name = env_or_empty("CORDON_POD_NAME"),
                    node = env_or_empty("CORDON_NODE_NAME");
  if (!ns.empty() || !name.empty() || !node.empty())
    origin["pod"] = {{"namespace", bytes_json(ns)}, {"name", bytes_json(name)}, {"node", bytes_json(node)}};
  return origin;
}

Json export_line(const std::string& session_id, const Json& record_line, long long dropped_before, const Json& origin) {
  return {{"format", kExportFormat}, {"version", kExportVersion},
          {"session", session_id},   {"kind", record_line.value("format", "")},
          {"host", origin["host"]},  {"pod", origin["pod"]},
          {"sent", utc_now()},       {"dropped_before", dropped_before},
          {"line", record_line}};
}

RecordExport::RecordExport(RecordExportTarget target, std::string state_dir)
    : target_(std::move(target)), counter_path_(std::move(state_dir) + "/export-dropped") {}

long long RecordExport::dropped() const {
  UniqueFd fd(::open(counter_path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return 0;
  char text[32] = {};
  const ssize_t n = ::read(fd.get(), text, sizeof text - 1);
  return n > 0 ? parse_signed(trim(text)).value_or(0) : 0;
}

// One more under the file's lock: concurrent launches of this user count each drop once.
void RecordExport::count_drop() const {
  UniqueFd fd(::open(counter_path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600));
  if (!fd.valid() || ::flock(fd.get(), LOCK_EX) != 0) return;
  char text[32] = {};
  const ssize_t n = ::pread(fd.get(), text, sizeof text - 1, 0);
  const std::string next = std::to_string((n > 0 ? parse_signed(trim(text)).value_or(0) : 0) + 1) + "\n";
  if (::ftruncate(fd.get(), 0) == 0) {
    const ssize_t ignored = ::pwrite(fd.get(), next.data(), next.size(), 0);
    (void)ignored;
  }
}

std::string RecordExport::send(const std::string& session_id, const Json& record_line) const {
  if (!enabled()) return "";
  const std::string line = dump_line(export_line(session_id, record_line, dropped(), export_origin())) + "\n";
  std::string why;
  switch (target_.kind) {
    case Kind::Stderr: {
      // The launcher's own stderr keeps its blocking mode; a full pipe there fails this line
      // (EAGAIN) only if whoever opened it made it non-blocking.
      why = send_to_descriptor(STDERR_FILENO, line);
      break;
    }
    case Kind::File: why = send_to_file(target_.path, line); break;
    case Kind::UnixSocket: why = send_to_socket(target_.path, line); break;
    case Kind::None: break;
  }
  if (!why.empty()) count_drop();
  return why;
}

}  // namespace cordon
