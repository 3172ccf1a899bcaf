#include "launcher/record/session_state.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "common/error.h"
#include "common/text.h"
#include "launcher/record/record_file.h"

namespace cordon {
namespace {

// The state file's fixed size: "running", or "receipt-failed EXIT CAUSE", padded with spaces.
constexpr size_t kStateFileSize = 512;
constexpr const char* kRunning = "running";
constexpr const char* kReceiptFailed = "receipt-failed ";

std::string padded(std::string text) {
  if (text.size() > kStateFileSize - 1) text.resize(kStateFileSize - 1);
  text += '\n';
  text.resize(kStateFileSize, ' ');
  return text;
}

// Opens an existing state file without following a symlink or blocking on a FIFO; only a
// regular file is accepted.
UniqueFd open_state(const std::string& path, int flags) {
  UniqueFd fd(::open(path.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return UniqueFd();
  return fd;
}

std::string content_of(int fd) {
  char buffer[kStateFileSize + 1] = {};
  ssize_t n = ::pread(fd, buffer, kStateFileSize, 0);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "";
}

}  // namespace

const char* live_state_name(LiveState state) {
  switch (state) {
    case LiveState::None: return "ended";
    case LiveState::Running: return "running";
    case LiveState::Crashed: return "crashed";
    case LiveState::ReceiptFailed: return "receipt-failed";
    case LiveState::Unreadable: return "unreadable";
  }
  return "?";
}

std::string live_dir(const std::string& dir) { return dir + "/live"; }

std::string state_file_path(const std::string& dir, const std::string& id) {
  return live_dir(dir) + "/" + id + ".state";
}

StateFile::StateFile(const std::string& dir, const std::string& id) : path_(state_file_path(dir, id)) {
  if (::mkdir(live_dir(dir).c_str(), 0700) != 0 && errno != EEXIST)
    throw Error(errno_text("creating " + live_dir(dir), errno),
                "make " + dir + " writable by this user; nothing runs without a record");
  // The file appears under its name only once locked and written, so a concurrent launch's
  // sweep never sees it unlocked (it would take it for crashed): made unnamed (O_TMPFILE) and
  // linked in; where the filesystem cannot, made as "<id>.new" and renamed (the sweep removes
  // an unlocked one after a minute).
  const std::string context = "writing the session state file " + path_;
  // Each failure names its own call's errno (a short write sets none).
  auto lock_and_write = [&]() -> std::string {
    if (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) return errno_text(context, errno);
    return write_all(fd_.get(), padded(kRunning), context);  // a new file: at offset 0
  };
  const std::string fix = "make " + dir +
                          " writable by this user (and free space there); nothing runs without a record";
  fd_.reset(::open(live_dir(dir).c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (fd_.valid()) {
    const std::string self = "/proc/self/fd/" + std::to_string(fd_.get());
    std::string problem = lock_and_write();
    if (problem.empty() && ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path_.c_str(), AT_SYMLINK_FOLLOW) != 0)
      problem = errno_text(context, errno);
    if (!problem.empty()) throw Error(problem, fix);
    return;
  }
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
    throw Error(errno_text("creating the session state file in " + live_dir(dir), errno), fix);
  const std::string fresh = live_dir(dir) + "/" + id + kNewSuffix;
  fd_.reset(::open(fresh.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd_.valid()) throw Error(errno_text("creating the session state file " + fresh, errno), fix);
  std::string problem = lock_and_write();
  if (problem.empty() && ::rename(fresh.c_str(), path_.c_str()) != 0) problem = errno_text(context, errno);
  if (!problem.empty()) {
    ::unlink(fresh.c_str());
    throw Error(problem, fix);
  }
}

void StateFile::remove() {
  ::unlink(path_.c_str());
  fd_.reset();
}

void StateFile::note_receipt_failed(int exit_code, const std::string& cause) {
  const std::string text = padded(kReceiptFailed + std::to_string(exit_code) + " " + cause);
  ssize_t ignored = ::pwrite(fd_.get(), text.data(), text.size(), 0);  // in place: no new block
  (void)ignored;
  fd_.reset();
}

LiveState probe_live_state(const std::string& dir, const std::string& id, ReceiptNote* note) {
  const std::string path = state_file_path(dir, id);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT ? LiveState::None : LiveState::Unreadable;
  UniqueFd fd = open_state(path, O_RDONLY);
  if (!fd.valid()) return LiveState::Unreadable;
  if (::flock(fd.get(), LOCK_SH | LOCK_NB) != 0) return LiveState::Running;
  std::optional<ReceiptNote> noted = receipt_failed_note(fd.get());
  if (!noted) return LiveState::Crashed;
  if (note) *note = *noted;
  return LiveState::ReceiptFailed;
}

std::optional<ReceiptNote> receipt_failed_note(int fd) {
  std::string text = content_of(fd);
  if (text.rfind(kReceiptFailed, 0) != 0) return std::nullopt;
  text = text.substr(std::strlen(kReceiptFailed));
  text = text.substr(0, text.find('\n'));  // "EXIT CAUSE"
  // An exit status that is no number that fits was not written by note_receipt_failed.
  const std::optional<long long> exit_code = parse_signed(text.substr(0, text.find(' ')));
  if (!exit_code) return std::nullopt;
  ReceiptNote note;
  note.exit_code = *exit_code;
  note.cause = text.substr(std::min(text.size(), text.find(' ') + 1));
  return note;
}

std::vector<std::string> remove_abandoned_new_state_files(const std::string& dir) {
  std::vector<std::string> removed;
  for (const auto& id : session_ids(live_dir(dir), kNewSuffix)) {
    const std::string path = live_dir(dir) + "/" + id + kNewSuffix;
    struct stat st {};
    // A minute: the maker holds its lock from a microsecond after creating the file.
    if (::lstat(path.c_str(), &st) != 0 || std::time(nullptr) - st.st_mtime < 60) continue;
    UniqueFd fd = open_state(path, O_RDWR);
    if (!fd.valid() || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) continue;
    if (::unlink(path.c_str()) == 0) removed.push_back(id);
  }
  return removed;
}

UniqueFd lock_if_launcher_gone(const std::string& dir, const std::string& id) {
  UniqueFd fd = open_state(state_file_path(dir, id), O_RDWR);
  if (!fd.valid() || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return UniqueFd();
  return fd;
}

}  // namespace cordon
