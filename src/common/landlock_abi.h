// Landlock as the running kernel offers it: its ABI version, the access rights and scopes each
// ABI adds, their names, and thin wrappers of the three system calls. Shared by everything that
// builds or applies a ruleset (the launcher's plan, the exec step, the helpers, doctor), so the
// rights per ABI are written down once.
//
// Debian 12's <linux/landlock.h> (Linux 6.1, ABI 2) stops at REFER and has a one-member
// ruleset attribute; the rights and scopes of later ABIs are defined here under our own names
// with the kernel's values, and the attribute is our own three-member struct, passed at full
// size: an older kernel accepts the larger struct as long as the members it does not know are
// zero (copy_struct_from_user), so one struct serves every ABI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/unique_fd.h"

namespace cordon::landlock {

// Filesystem access rights (LANDLOCK_ACCESS_FS_*), ABI 1 unless noted.
inline constexpr uint64_t kAccessFsExecute = 1ULL << 0;
inline constexpr uint64_t kAccessFsWriteFile = 1ULL << 1;
inline constexpr uint64_t kAccessFsReadFile = 1ULL << 2;
inline constexpr uint64_t kAccessFsReadDir = 1ULL << 3;
inline constexpr uint64_t kAccessFsRemoveDir = 1ULL << 4;
inline constexpr uint64_t kAccessFsRemoveFile = 1ULL << 5;
inline constexpr uint64_t kAccessFsMakeChar = 1ULL << 6;
inline constexpr uint64_t kAccessFsMakeDir = 1ULL << 7;
inline constexpr uint64_t kAccessFsMakeReg = 1ULL << 8;
inline constexpr uint64_t kAccessFsMakeSock = 1ULL << 9;
inline constexpr uint64_t kAccessFsMakeFifo = 1ULL << 10;
inline constexpr uint64_t kAccessFsMakeBlock = 1ULL << 11;
inline constexpr uint64_t kAccessFsMakeSym = 1ULL << 12;
inline constexpr uint64_t kAccessFsRefer = 1ULL << 13;     // ABI 2
inline constexpr uint64_t kAccessFsTruncate = 1ULL << 14;  // ABI 3
inline constexpr uint64_t kAccessFsIoctlDev = 1ULL << 15;  // ABI 5

// The rights a rule on a file (not a directory) may carry: the kernel refuses any other with
// EINVAL, so an exec step masks a rule on a non-directory to these.
inline constexpr uint64_t kAccessFsFileRights = kAccessFsExecute | kAccessFsWriteFile | kAccessFsReadFile |
                                                kAccessFsTruncate | kAccessFsIoctlDev;

// Scopes (LANDLOCK_SCOPE_*), ABI 6: no connect to an abstract unix socket, and no signal to a
// process, outside the domain.
inline constexpr uint64_t kScopeAbstractUnixSocket = 1ULL << 0;
inline constexpr uint64_t kScopeSignal = 1ULL << 1;

// landlock_create_ruleset(2) flags: ask for the ABI version / the errata bitmask (no ruleset).
inline constexpr uint32_t kCreateRulesetVersion = 1U << 0;
inline constexpr uint32_t kCreateRulesetErrata = 1U << 1;

// landlock_add_rule(2) rule type for a file hierarchy.
inline constexpr int kRulePathBeneath = 1;

// The newest ABI whose rights this file knows; a newer kernel gets these and no more.
inline constexpr int kNewestKnownAbi = 7;

// struct landlock_ruleset_attr as of ABI 6 (handled_access_net since ABI 4, scoped since 6).
struct RulesetAttr {
  uint64_t handled_access_fs = 0;
  uint64_t handled_access_net = 0;
  uint64_t scoped = 0;
};

// struct landlock_path_beneath_attr: packed in the kernel's ABI (12 bytes).
struct __attribute__((packed)) PathBeneathAttr {
  uint64_t allowed_access = 0;
  int32_t parent_fd = -1;
};

// What the running kernel offers. abi 0: no Landlock; `error` is the errno of the version query
// and `problem` says what it means and where the fix lies.
struct Support {
  int abi = 0;
  uint32_t errata = 0;  // fixed issues of this ABI (0 when the kernel cannot say)
  int error = 0;
  std::string problem;
};

// Asks the kernel (landlock_create_ruleset with the VERSION flag, then ERRATA).
Support landlock_abi();

// The filesystem rights the kernel handles at `abi` (0 for abi < 1; kNewestKnownAbi's for newer).
uint64_t handled_fs_for_abi(int abi);

// The scopes the kernel has at `abi`: both from ABI 6, none before.
uint64_t scopes_for_abi(int abi);

// The rights in `fs_mask`, lowercase without the prefix ("read_file", "ioctl_dev"), in bit
// order; an unknown bit as "bit N".
std::vector<std::string> access_names(uint64_t fs_mask);

// The scopes in `scopes` ("abstract_unix_socket", "signal"); an unknown bit as "bit N".
std::vector<std::string> scope_names(uint64_t scopes);

// What cordon would use but a kernel of `abi` lacks, each with the ABI that brings it:
// "refer (ABI 2)", "truncate (ABI 3)", "device ioctl (ABI 5)", "abstract unix socket and
// signal scopes (ABI 6)". Network rights (ABI 4) are not listed: cordon leaves them unhandled,
// its network namespace confines TCP.
std::vector<std::string> unavailable_at(int abi);

// A descriptor, or the errno of the call that did not make one.
struct FdResult {
  UniqueFd fd;
  int error = 0;
};

// landlock_create_ruleset(2) with our full-size attribute; CLOEXEC, as the kernel makes it.
FdResult create_ruleset(const RulesetAttr& attr);

// landlock_add_rule(2), PATH_BENEATH: `mask` on the hierarchy (or file) `path_fd` names,
// preferably an O_PATH descriptor. Returns 0 or the errno.
int add_path_rule(int ruleset_fd, int path_fd, uint64_t mask);

// A rule granting `access` beneath `path`, opened O_PATH: on a non-directory only the file
// rights of `access` (the kernel refuses the others there), and nothing when none is left.
// Returns 0, or the errno of the open (*opened set false: the path is absent or out of reach)
// or of landlock_add_rule.
int add_rule_at_path(int ruleset_fd, const std::string& path, uint64_t access, bool* opened = nullptr);

// landlock_restrict_self(2): the calling thread enters the ruleset's domain for good (the caller
// must have set no_new_privs, or hold CAP_SYS_ADMIN). Returns 0 or the errno.
int restrict_self(int ruleset_fd, uint32_t flags = 0);

}  // namespace cordon::landlock
