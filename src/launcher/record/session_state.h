// A session's live state file, "live/<id>.state" beside its record while the launcher runs. The
// launcher holds an exclusive flock on it for its whole life, so "is the launcher still
// there?" has a kernel answer that no PID reuse can fool: the lock is released when the
// launcher dies, SIGKILL included. The file is written once, at full size, when created, so
// that a note can later be written in place on a full disk (no new block is needed).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/unique_fd.h"

namespace cordon {

// What a state file says about its session.
enum class LiveState {
  None,           // no state file: the session ended and its receipt is in the record
  Running,        // the launcher holds the lock
  Crashed,        // the launcher is gone without a receipt (and without a note)
  ReceiptFailed,  // the launcher ended but could not append the receipt; the note says why
  Unreadable,     // not a regular file, or cannot be opened
};

const char* live_state_name(LiveState state);

// "<dir>/live/<id>.state": apart from the records, so that the sweep every launch makes reads a
// directory of the few sessions running or crashed, not of every record kept.
std::string live_dir(const std::string& dir);
std::string state_file_path(const std::string& dir, const std::string& id);
// A state file being made ("<id>.new", renamed to "<id>.state" once locked and written).
inline constexpr const char* kNewSuffix = ".new";

// Removes "<id>.new" files that no launcher holds and that are older than a minute: left by a
// launcher killed between making its state file and renaming it. Returns the ids removed.
std::vector<std::string> remove_abandoned_new_state_files(const std::string& dir);

class StateFile {
 public:
  // Creates and locks "<dir>/<id>.state". Throws cordon::Error (nothing runs without it).
  StateFile(const std::string& dir, const std::string& id);
  ~StateFile() = default;  // the lock goes with the descriptor
  StateFile(const StateFile&) = delete;
  StateFile& operator=(const StateFile&) = delete;

  // The receipt is in the record: the state file goes.
  void remove();
  // The receipt could not be appended: says so, and why, in the state file (in place).
  void note_receipt_failed(int exit_code, const std::string& cause);

 private:
  std::string path_;
  UniqueFd fd_;
};

// Reads a state file without blocking or sweeping. `note` receives a ReceiptFailed note.
// What a ReceiptFailed state file says: the status the launcher returned, and why the receipt
// could not be written.
struct ReceiptNote {
  long long exit_code = 0;
  std::string cause;
};

LiveState probe_live_state(const std::string& dir, const std::string& id, ReceiptNote* note = nullptr);

// For the sweeper: when the launcher is gone, the state file's descriptor with the lock held
// (so that no concurrent sweeper takes the same session); invalid while it runs.
UniqueFd lock_if_launcher_gone(const std::string& dir, const std::string& id);

// The note of a ReceiptFailed state file read through `fd`; nullopt for a crash.
std::optional<ReceiptNote> receipt_failed_note(int fd);

}  // namespace cordon
