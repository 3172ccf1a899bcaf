// cordon-egress-proxy's command line (parsed by hand: a handful of --key value pairs).
//   cordon-egress-proxy --listen-fd N --log-fd M [--allow RULE]... [--deny RULE]...
//       [--refuse CIDR]... [--max-connections 64] [--max-header-bytes 16384]
//       [--idle-seconds 300] [--connect-timeout-seconds 10] [--header-timeout-seconds 10]
//       [--reclaim-idle-seconds 30] [--max-log-bytes 1048576] [--landlock auto|required|off]
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/decision_bounds.h"
#include "common/ipv4.h"

namespace cordon::egress {

// Its own Landlock domain (confine.h), as the launcher's [sandbox] landlock says: "auto" enters
// what the kernel has, "required" refuses to serve without it, "off" enters none. Its seccomp
// filter is applied whatever the mode.
enum class LandlockMode { Auto, Required, Off };

struct Options {
  int listen_fd = -1;  // a listening TCP socket, inherited
  int log_fd = -1;     // where decision lines go
  std::vector<std::string> allow, deny;
  std::vector<Ipv4Prefix> refuse;
  int max_connections = 64;
  size_t max_header_bytes = 16384;
  int idle_seconds = 300;
  int connect_timeout_seconds = 10;
  int header_timeout_seconds = 10;  // the whole head, however it trickles in
  // When every slot is taken, a relay idle this long may give its slot to a new client
  // (reclaim.h); a client still sending its head may at once.
  int reclaim_idle_seconds = 30;
  // Whole decision lines up to this many bytes of log; then counts only (decision_log.h).
  size_t max_log_bytes = kDecisionLogBytes;
  bool help = false;
  // --test-allow-all, test builds only: every destination admitted, no address refused (the
  // weakening that proves cordon-probe's policy probes can see an open proxy).
  bool test_allow_all = false;
  LandlockMode landlock = LandlockMode::Auto;
  // Test builds only: no confinement at all (--test-no-confine, the controls); the kernel's
  // Landlock ABI taken as N (--test-landlock-abi N; 0 = none); after confinement, what it still
  // may do written on stderr, one "probe ..." line each (--test-probe-open PATH, and with it
  // exec, fork, a signal to its parent, --test-probe-abstract NAME).
  bool test_no_confine = false;
  int test_landlock_abi = -1;
  std::string test_probe_open;
  std::string test_probe_abstract;
};

// Throws cordon::Error (exit status 64 = usage) naming the bad argument. Rules are checked
// later, by EgressRules.
Options parse_options(const std::vector<std::string>& args);

std::string usage_text();

}  // namespace cordon::egress
