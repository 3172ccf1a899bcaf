// The Landlock section of the plan: a second filesystem layer made from the same mount steps
// the mounts are made from (not from a second list), granting what the view grants and nothing
// more. A wrong bind then widens the mounts but not the ruleset: what the view never meant to
// grant stays denied (EACCES) by a mechanism that does not depend on the mount table.
// Pure: the kernel's ABI is a fact gathered before the plan (common/landlock_abi.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/intent.h"
#include "common/landlock_abi.h"
#include "common/landlock_rules.h"
#include "launcher/inputs/config.h"
#include "launcher/section/section.h"

namespace cordon::landlock {

// [sandbox] landlock (inputs/config.h).
using LandlockMode = cordon::LandlockMode;

// The oldest ABI applied: ABI 1 has no REFER right, and a ruleset without it turns every rename
// across directories into EXDEV (git, mv, package managers break).
inline constexpr int kMinimumAbi = 2;

struct LandlockSection {
  LandlockMode mode = LandlockMode::Auto;
  int abi = 0;                           // the kernel's (0: no Landlock)
  bool apply = false;                    // mode != Off && abi >= kMinimumAbi
  uint64_t handled_fs = 0, scoped = 0;   // what the ruleset handles (0 when not applied)
  std::vector<LandlockRule> rules;       // merged, pruned, sorted by path (empty when not applied)
  std::vector<std::string> unavailable;  // what this kernel lacks: "truncate (ABI 3)", ... (not with off)
  std::string why_not;                   // why nothing is applied, or ""
};

// The section for `mounts` (fs/mounts.h plan_filesystem(): un-weakened, in bwrap's order) on a
// kernel of `abi`. Each step's rights by its role and op, ANDed with what `abi` handles; rules on
// one path merged, rules whose rights their ancestors' rules already grant dropped (Landlock
// grants a path the union of the rules on it and its ancestors: exact). `problem`: why the
// kernel has none (common/landlock_abi.h Support::problem), named when abi < kMinimumAbi.
// The plan does not know which dests are files (a state entry, a [filesystem] writable socket,
// resolv.conf's target): the step applying a rule on a non-directory masks it to
// kAccessFsFileRights, as the kernel accepts nothing else there.
// Throws cordon::Error under Required when abi < kMinimumAbi, saying what to change.
// `terminal_console`: the sandbox's stdout is a terminal (the session's pty, or the operator's
// with [terminal] private = false), which bwrap binds at /dev/console; only then is that node
// granted, so a host /dev bound by mistake does not open the host's console.
LandlockSection plan_landlock(LandlockMode mode, int abi, const std::vector<MountStep>& mounts,
                              const std::string& problem = {}, bool terminal_console = false);

// What the session file and `cordon status` say of the section (common/intent.h).
LandlockIntent describe_landlock(const LandlockSection& section);

// The rules file for a section that applies (common/landlock_rules.h).
LandlockRules rules_of(const LandlockSection& section);

// Rights, by what a mount grants, before masking by ABI. MAKE_CHAR and MAKE_BLOCK are handled
// and never granted.
inline constexpr uint64_t kReadRights = kAccessFsReadFile | kAccessFsReadDir;
inline constexpr uint64_t kReadExecRights = kReadRights | kAccessFsExecute;
inline constexpr uint64_t kReadWriteRights = kReadExecRights | kAccessFsWriteFile | kAccessFsRemoveDir |
                                             kAccessFsRemoveFile | kAccessFsMakeDir | kAccessFsMakeReg |
                                             kAccessFsMakeSock | kAccessFsMakeFifo | kAccessFsMakeSym | kAccessFsRefer |
                                             kAccessFsTruncate;
inline constexpr uint64_t kDeviceRights = kAccessFsReadFile | kAccessFsWriteFile | kAccessFsTruncate |
                                          kAccessFsIoctlDev;
// /proc: written too (task/*/comm, oom_score_adj); /proc/sys stays read-only by its mount.
inline constexpr uint64_t kProcRights = kReadRights | kAccessFsWriteFile | kAccessFsTruncate;
// A configured agent binary outside the view: the file itself, to read and run.
inline constexpr uint64_t kBinaryRights = kAccessFsReadFile | kAccessFsExecute;

// The nodes bwrap's --dev always makes, below its /dev (a file rule each); "console" besides,
// when bwrap binds the session's terminal there (plan_landlock's terminal_console).
inline constexpr const char* kDevNodes[] = {"null", "zero", "full", "random", "urandom", "tty"};

}  // namespace cordon::landlock
