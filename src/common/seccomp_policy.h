// The seccomp rule table: pure data, no libseccomp. The filter is default-ALLOW; each rule
// makes one syscall (optionally only for some argument values) fail with an errno instead.
// Compiled to BPF by seccomp_compile.h; documented rule by rule in docs/seccomp.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cordon::seccomp {

struct PolicyOptions {
  bool allow_ptrace = false;  // debuggers inside the sandbox: keep ptrace and process_vm_*
};

// Comparisons are on the full 64-bit argument (libseccomp semantics).
enum class Cmp { Eq, MaskedEq, Gt, Lt };

// `arg` is 0-based. MaskedEq tests (arg & mask) == value; the other ops ignore `mask`.
// All conditions of one rule must hold (AND). Several rules for one syscall are ORed.
struct ArgCondition {
  unsigned arg;
  Cmp op;
  uint64_t mask;
  uint64_t value;
};

struct Rule {
  std::string syscall;                   // libseccomp name, resolved for the native arch
  int errno_value;                       // returned as -1/errno instead of running the call
  std::vector<ArgCondition> conditions;  // empty: always
  std::string why;                       // short reason, for logs and docs
};

// The rules, in a stable order.
std::vector<Rule> build_rules(const PolicyOptions& options);

// The filter of cordon's own long-lived helpers outside the sandbox (cordon-egress-proxy, the
// terminal and session keepers): the sandbox's rules (ptrace denied) and then what none of them
// does once confined, so a bug in one cannot run a program, start a process, or change its
// own confinement: execve/execveat, fork/vfork and clone without CLONE_THREAD (threads stay),
// unshare of any namespace, chroot, open_by_handle_at, and the landlock_* calls (applied
// before the filter). In a stable order; docs/seccomp.md lists them.
std::vector<Rule> build_helper_rules();

// One line such as "ioctl: EPERM if a1 & 0xffffffff == 0x5412". Excludes `why`, so the
// digest below changes only when the filter's behaviour changes.
std::string describe(const Rule& rule);

// SHA-256 (64 lower-case hex digits) over the describe() lines (each followed by '\n'),
// the same digest the manifest gives the configuration.
std::string rules_digest(const std::vector<Rule>& rules);

}  // namespace cordon::seccomp
