// What the probes know: the caller's options (targets of a test world, host services the
// caller started, canaries it planted, a host process it started) and facts gathered once at
// start-up (the session file if cordon launched us, the descriptors we inherited).
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/intent.h"

namespace cordon::probe {

// One address of the caller's test world: "tcp:10.1.2.3:8080", "udp:[fd00::10]:53".
struct NetTarget {
  bool tcp = true;
  int family = AF_INET;
  std::string address;  // textual, without brackets
  uint16_t port = 0;
  sockaddr_storage sa{};
  socklen_t sa_len = 0;
  std::string text() const;  // "tcp:10.1.2.3:8080"
};

// A host process outside the sandbox. `start` (clock ticks since boot, field 22 of
// /proc/PID/stat as the host sees it) tells the target apart from an unrelated process that
// happens to carry the same number inside a PID namespace.
struct TargetPid {
  pid_t pid = 0;
  std::optional<unsigned long long> start;
};

struct Options {
  bool json = false;
  bool failures_only = false;  // the ESCAPED and INCONCLUSIVE rows only (cordon verify without -v)
  bool list = false;
  bool selftest = false;
  bool help = false;
  bool version = false;
  std::vector<std::string> only;  // probe ids
  std::optional<TargetPid> target;
  std::vector<NetTarget> net_targets;
  std::vector<uint16_t> host_loopback_ports;
  std::vector<std::string> host_abstract;  // names without the leading '@' / NUL
  std::vector<std::string> canaries;       // absolute host paths
  std::optional<int> checks_passed;        // from `cordon verify --deep`
  int timeout_ms = 5000;                   // per probe
};

// Parses argv (CLI11). Returns nullopt with *error set on a usage error.
std::optional<Options> parse_options(int argc, char** argv, std::string* error);
std::string usage_text();

// An inherited descriptor, recorded before the probe opened anything.
struct InheritedFd {
  int fd = -1;
  std::string link;  // readlink /proc/self/fd/N
};

struct Context {
  Options options;
  std::optional<SessionIntent> session;  // /run/cordon/session, when cordon launched us
  std::string home;                      // $HOME
  std::string workspace;                 // session workspace, else the current directory
  std::string libexec;                   // directory of this binary
  std::string self_exe;                  // resolved /proc/self/exe
  uid_t uid = 0, euid = 0;
  gid_t gid = 0;
  std::map<std::string, std::string> env;
  std::vector<InheritedFd> inherited_fds;
};

// Gathers the facts; call first thing in main (before any descriptor is opened).
Context make_context(Options options);

// Canaries split by where they live: under $HOME (host credentials) or elsewhere (another
// project, a directory outside the workspace).
std::vector<std::string> home_canaries(const Context& ctx);
std::vector<std::string> other_canaries(const Context& ctx);

}  // namespace cordon::probe
