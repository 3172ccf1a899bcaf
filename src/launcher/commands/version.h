// `cordon --version`: what a bug report needs to name this cordon and its runtime, as plain
// lines to paste. It reads no configuration and touches no network, so it works for any user
// on any host, even one where cordon cannot launch.
#pragma once

#include <string>
#include <vector>

#include "launcher/record/host_tools.h"

namespace cordon {

struct VersionFacts {
  std::string version;           // cordon's own (build_config.h)
  std::string commit;            // the git commit it was built from, "unknown" outside a checkout
  bool commit_modified = false;  // built from a tree whose tracked files differed from `commit`
  std::vector<HostTool> tools;   // bwrap, then pasta
};

// This binary's facts and the tools found on this host now.
VersionFacts gather_version_facts();

// The report, one fact a line:
//   cordon 0.1.0
//   commit: 0123abcd...
//   bwrap: /usr/bin/bwrap (bubblewrap 0.8.0)
//   pasta: none found (looked in /usr/bin, /usr/local/bin, /bin, /usr/sbin, /sbin)
// Every path and version is escaped (terminal_safe), so each stays one line of printable text.
std::string version_report(const VersionFacts& facts);

}  // namespace cordon
