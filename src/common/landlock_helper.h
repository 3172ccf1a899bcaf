// A Landlock domain for one of cordon's own helpers outside the sandbox (the egress proxy, the
// keepers), made and entered by the helper itself: every filesystem right of the running ABI
// handled, only the grants given allowed, and the scopes the ABI has. The sandbox's own
// ruleset is planned elsewhere (launcher/landlock); this is for a process that knows its few
// needs up front.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cordon::landlock {

struct PathGrant {
  std::string path;     // opened O_PATH; one that does not exist is skipped
  uint64_t access = 0;  // masked to the ABI's rights (and to file rights on a non-directory)
};

struct HelperRuleset {
  bool handle_fs = true;   // every right of the ABI handled: only `grants` open
  uint64_t unhandled = 0;  // of those, rights left to the mounts and modes (e.g. reading)
  std::vector<PathGrant> grants;
  uint64_t scopes = 0;  // kScopeAbstractUnixSocket | kScopeSignal, masked to the ABI's
};

// What was entered: abi 0 and `problem` when the kernel has no Landlock (nothing applied).
struct HelperDomain {
  int abi = 0;
  bool applied = false;
  uint64_t handled_fs = 0;
  uint64_t scoped = 0;
  std::string problem;               // why nothing was applied ("" when applied)
  std::vector<std::string> missing;  // what this ABI lacks of what was asked (scopes before ABI 6)
};

// Sets no_new_privs and restricts the calling thread: call it before any other thread exists.
// A failure after the kernel said it has Landlock is `problem` with applied false. `abi`
// overrides the kernel's answer when >= 0 (only for test hooks that pretend an older kernel:
// 0 = none).
HelperDomain enter_helper_domain(const HelperRuleset& ruleset, int abi = -1);

}  // namespace cordon::landlock
