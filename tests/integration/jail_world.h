// The fake network world the egress-jail tests run in (built by networld.sh, see the diagram
// there): a "fake host" network namespace where cordon and pasta run, a router namespace
// owning the LAN, the metadata address, the "internet" and the resolver. Nothing here sends a
// packet from the machine's own network namespace: every cordon launch goes through
// `ip netns exec <fake host>`.
#pragma once

#include <string>

namespace cordon::testing {

struct CommandResult {
  int status = -1;      // exit status; 124 when the timeout fired
  std::string output;   // stdout and stderr together
};

// Runs `/bin/sh -c command` under a hard timeout (coreutils `timeout`).
CommandResult run_shell(const std::string& command, int timeout_seconds = 60);

enum class As { Root, User };

class NetWorld {
 public:
  static constexpr const char* kUser = "cordon-jail-test";

  // Builds the world, installs a world-readable copy of cordon, creates the test user.
  // Returns "" on success, else what went wrong (the caller still calls down()).
  std::string up();
  void down();  // idempotent: namespaces, listeners, files

  // Writes a config file (world-readable) and returns its path.
  std::string write_config(const std::string& name, const std::string& toml) const;
  // The workspace for root or for the test user (holds probe.py).
  std::string workspace(As as) const;
  // Writes `text` into both workspaces as `name` (for scripts run inside the sandbox).
  void put_in_workspaces(const std::string& name, const std::string& text) const;

  struct RunOptions {
    As as = As::Root;
    std::string prelude;  // shell lines run first, as root, in the launch's own mount namespace
    std::string env;      // VAR=value words for cordon's environment
    std::string wrapper;  // a command cordon is exec'd under (receives cordon's argv)
    std::string netns;    // "" = the fake host
    bool verify = false;  // `cordon verify` (the battery) instead of `run -- ARGS`
    // Launch as production does: no --config; the config is placed at the build's fixed
    // path by an overlay in the launch's private mount namespace (the host's /etc is untouched).
    bool fixed_config = false;
    bool deep = false;  // with verify: `cordon verify --deep` (battery, then probes)
    bool status = false;  // `cordon status` (with run_flags) instead of `run -- ARGS`
    std::string run_flags = "";  // `cordon run` (or verify) options (e.g. --test-weaken NAME)
    std::string workspace = "";  // "" = workspace(as); else this directory (made by the caller)
    int timeout_seconds = 120;
  };
  // Runs `cordon --config CONFIG run --workspace WS -- ARGS` inside the fake host (through
  // `ip netns exec`, which also gives each launch a private mount namespace for sabotage).
  CommandResult cordon_run(const std::string& config, const std::string& args, const RunOptions& options) const;
  CommandResult cordon_run(const std::string& config, const std::string& args, As as = As::Root) const {
    RunOptions o;
    o.as = as;
    return cordon_run(config, args, o);
  }

  // Processes in the fake host's namespace besides the world's own listener.
  std::string stray_processes() const;
  // What the last cordon_run left in its private /tmp (each launch gets its own, so
  // parallel test processes cannot confuse the check); "" when empty.
  std::string leftover_temp_files() const;

  std::string id, dir, host_ns, router_ns, cordon;
  std::string state_dir;  // CORDON_TEST_STATE_DIR of every launch: "<state_dir>/<uid>/sessions"
  bool user_ready = false;

 private:
  std::string script_dir() const { return dir + "/scripts"; }
  mutable std::string last_tmp_;
};

// A world shared by the tests of one suite. For SetUpTestSuite: builds it when running as root
// (nullptr otherwise: the tests skip); `problem` says what failed ("" = nothing).
NetWorld* open_suite_world(std::string& problem);
// For TearDownTestSuite: tears it down and deletes it (nullptr is fine).
void close_suite_world(NetWorld*& world);

}  // namespace cordon::testing
