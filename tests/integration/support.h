// Test support for integration tests: real processes, real users, bounded waits.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "accounts_lock.h"
#include "common/json_codec.h"
#include "common/unique_fd.h"

namespace cordon::testing {

// A temporary directory (mode 0755) removed recursively at destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "/tmp/cordon-it-");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Identity {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string name = "root";
  std::string home = "/root";
};

// The unprivileged account the suite runs sandboxes as (created when missing; needs root).
std::optional<Identity> unprivileged_identity();
Identity root_identity();

// Tests parameterised over who launches: root (as CI) and an ordinary user.
enum class Who { Root, User };
std::string who_name(const ::testing::TestParamInfo<Who>& info);
// The identity for `who`; nullopt when the unprivileged user cannot be created.
std::optional<Identity> identity_for(Who who);

struct RunOptions {
  std::map<std::string, std::string> env;  // the whole environment
  std::string cwd = "/";
  std::optional<Identity> as;  // switch to this user before exec (needs root)
  bool on_pty = false;         // stdin/stdout/stderr on a new pty as controlling tty
  unsigned short pty_rows = 0, pty_cols = 0;
  int timeout_ms = 60000;    // bounded: the process group is killed after this
  int signal_after_ms = -1;  // if >= 0, send `signal` to the process after this delay
  int signal = 0;
  std::string stdin_text;
  // On a pty: after `pty_after_ms`, type `pty_input` and/or resize the window.
  int pty_after_ms = -1;
  std::string pty_input;
  unsigned short resize_rows = 0, resize_cols = 0;
};

struct RunResult {
  int exit_code = -1;  // 128+N for signal N
  bool timed_out = false;
  std::string out;  // stdout (+ everything, on a pty)
  std::string err;
};

RunResult run(const std::vector<std::string>& argv, const RunOptions& options);

void write_file(const std::string& path, const std::string& content, mode_t mode = 0644);
std::string read_file(const std::string& path);
bool path_exists(const std::string& path);
// Waits until `path` exists, bounded by `timeout_ms`; whether it does (a session's command
// touching a file says it has started).
bool wait_for_path(const std::string& path, int timeout_ms = 5000);
void chown_tree(const std::string& path, uid_t uid, gid_t gid);

// Copies the built cordon binary and libexec helpers to a world-readable prefix so an
// unprivileged user can run them even when the build tree is under /root.
std::string stage_install(const std::string& prefix_dir);

// Runs `argv` with `config_text` as the file at `fixed_path` (cordon's build-time config
// path), without touching the host: a private mount namespace overlays the nearest existing
// ancestor directory of `fixed_path`. Needs root; `options.as` is applied after the mount
// (setpriv), so the command runs unprivileged if asked. Lets a test launch cordon WITHOUT
// --config, i.e. exactly as production does (battery check 18 tells the two apart).
RunResult run_with_fixed_config(const std::string& fixed_path, const std::string& config_text,
                                const std::vector<std::string>& argv, RunOptions options);

// A background process (its own process group, stdio on /dev/null), for tests that need a
// process outside the sandbox. `options.env`, `cwd` and `as` apply; the other fields do not.
// Returns its pid (or -1); stop_background() kills the group and reaps it.
pid_t spawn_background(const std::vector<std::string>& argv, const RunOptions& options);
void stop_background(pid_t pid);
// base_env(who) with HOME set to `dir`, made and owned by `who` (`sudo -E`, a CI override).
std::map<std::string, std::string> env_with_other_home(const Identity& who, const std::string& dir);

// Holds an exclusive lock named `name` (under /run/lock) while it lives: tests in parallel
// processes that share a state of the test users' real homes (an agent's entries) take turns.
class HomeStateLock {
 public:
  explicit HomeStateLock(const std::string& name);
  ~HomeStateLock();
  HomeStateLock(const HomeStateLock&) = delete;
  HomeStateLock& operator=(const HomeStateLock&) = delete;

 private:
  int fd_ = -1;
};

// `argv` as the leader of a new session whose controlling terminal (and stdin, stdout,
// stderr) is the pty `slave`; `options.env`, `cwd` and `as` apply. The caller waits for it.
pid_t spawn_on_terminal(const std::vector<std::string>& argv, const RunOptions& options, int slave);
// Field 22 of /proc/PID/stat (clock ticks since boot), 0 when unreadable.
unsigned long long process_start_time(pid_t pid);

// The argv prefix that runs the rest as `as` (setpriv, no supplementary groups); root runs it.
std::vector<std::string> setpriv_as(const Identity& as);

// The test process's private state directory (CORDON_TEST_STATE_DIR in base_env, a test-build
// hook): launches in tests never read or write the host's real records and last-verify.
const std::string& test_state_dir();

// Where cordon keeps `who`'s session records under test_state_dir().
std::string sessions_dir_of(const Identity& who);
// The paths of `who`'s session records for launches in `workspace`, oldest first (session ids
// start with the UTC time): other tests launch as the same user in parallel.
std::set<std::string> session_records(const Identity& who, const std::string& workspace);
// A session record's lines (the manifest, then the receipt once it ended), each parsed
// strictly; a line that is not JSON fails the calling test.
std::vector<Json> record_lines(const std::string& path);

// A minimal environment for launching cordon as `who`, plus `extra`.
std::map<std::string, std::string> base_env(const Identity& who, const std::map<std::string, std::string>& extra = {});

// The operator in their workspace on the host: `who` running git with no host git config and a
// fixed identity ("Op"), in `workspace`.
RunOptions operator_in(const Identity& who, const std::string& workspace);

// A TCP socket listening on 127.0.0.1 at a port the kernel picks; invalid when that fails.
UniqueFd loopback_listener();

}  // namespace cordon::testing
