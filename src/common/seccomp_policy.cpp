#include "common/seccomp_policy.h"

#include <linux/netlink.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/sha256.h"

namespace cordon::seccomp {
namespace {

// Families a sandboxed program may open. Everything else (packet sockets, bluetooth, vsock,
// AF_KEY, AF_ALG, ...) is kernel attack surface that ordinary tools do not need.
constexpr uint64_t kAllowedFamilies[] = {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK};

void add(std::vector<Rule>& rules, const char* syscall, int err, const std::string& why,
         std::vector<ArgCondition> conditions = {}) {
  rules.push_back(Rule{syscall, err, std::move(conditions), why});
}

void add_all(std::vector<Rule>& rules, std::initializer_list<const char*> syscalls, const std::string& why) {
  for (const char* s : syscalls) add(rules, s, EPERM, why);
}

// socket/socketpair: EPERM unless a0 is an allowed family. libseccomp allows one comparison
// per argument per rule, so "not in the set" is the union of: below the smallest, each gap
// value, above the largest. The 64-bit Gt also catches garbage in the high 32 bits (the
// kernel would truncate the family to int and see an allowed value).
void add_family_rules(std::vector<Rule>& rules, const char* syscall) {
  const std::string why = "address family outside unix/inet/inet6/netlink";
  constexpr auto first = kAllowedFamilies[0];
  constexpr auto last = kAllowedFamilies[std::size(kAllowedFamilies) - 1];
  add(rules, syscall, EPERM, why, {{0, Cmp::Lt, 0, first}});
  for (uint64_t f = first + 1; f < last; ++f) {
    bool allowed = false;
    for (uint64_t a : kAllowedFamilies) allowed |= (a == f);
    if (!allowed) add(rules, syscall, EPERM, why, {{0, Cmp::Eq, 0, f}});
  }
  add(rules, syscall, EPERM, why, {{0, Cmp::Gt, 0, last}});
  // Netlink only for NETLINK_ROUTE (0): audit, xfrm, nf_tables, uevents... are not needed.
  add(rules, syscall, EPERM, "netlink protocol other than NETLINK_ROUTE",
      {{0, Cmp::Eq, 0, AF_NETLINK}, {2, Cmp::Gt, 0, NETLINK_ROUTE}});
}

}  // namespace

std::vector<Rule> build_rules(const PolicyOptions& options) {
  std::vector<Rule> rules;

  // Only the low 32 bits of the request reach the tty layer: mask them so garbage in the
  // high bits cannot slip TIOCSTI past an equality test (CVE-2019-10063).
  add(rules, "ioctl", EPERM, "TIOCSTI injects input into the controlling terminal",
      {{1, Cmp::MaskedEq, 0xFFFFFFFFu, TIOCSTI}});
  add(rules, "ioctl", EPERM, "TIOCLINUX can select/paste console text", {{1, Cmp::MaskedEq, 0xFFFFFFFFu, TIOCLINUX}});

  add_all(rules, {"io_uring_setup", "io_uring_enter", "io_uring_register"},
          "io_uring bypasses syscall filtering and is a frequent kernel bug source");
  add_all(rules, {"bpf"}, "eBPF is kernel attack surface");
  add_all(rules, {"perf_event_open"}, "perf events leak kernel/cross-process information");
  add_all(rules, {"keyctl", "add_key", "request_key"},
          "kernel keyrings are not namespaced: host secrets and bug surface");
  add_all(rules, {"userfaultfd"}, "userfaultfd widens kernel race windows for exploits");
  add_all(rules, {"kexec_load", "kexec_file_load"}, "replacing the running kernel");
  add_all(rules, {"init_module", "finit_module", "delete_module"}, "kernel modules");

  if (!options.allow_ptrace)
    add_all(rules, {"ptrace", "process_vm_readv", "process_vm_writev"}, "reading/writing other processes' memory");

  add_all(rules,
          {"mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
           "mount_setattr"},
          "the filesystem view is fixed by the launcher");
  add_all(rules, {"setns"}, "joining other namespaces");

  // Nested user namespaces hand out fresh capabilities over new namespaces (large surface).
  // On x86_64 (and most arches) clone's flags are arg0.
  const ArgCondition newuser{0, Cmp::MaskedEq, CLONE_NEWUSER, CLONE_NEWUSER};
  add(rules, "unshare", EPERM, "nested user namespaces", {newuser});
  add(rules, "clone", EPERM, "nested user namespaces", {newuser});
  // clone3 passes flags in memory, which seccomp cannot read: ENOSYS makes glibc fall back
  // to clone, where the rule above sees them.
  add(rules, "clone3", ENOSYS, "flags invisible to seccomp; glibc falls back to clone");

  add_family_rules(rules, "socket");
  add_family_rules(rules, "socketpair");
  return rules;
}

std::vector<Rule> build_helper_rules() {
  std::vector<Rule> rules = build_rules({});
  add_all(rules, {"execve", "execveat"}, "a helper runs no program once confined");
  add_all(rules, {"fork", "vfork"}, "a helper starts no process once confined");
  // Threads (the proxy's, one per connection) are clones with CLONE_THREAD; glibc's clone3
  // already falls back to clone (ENOSYS above), where the flags are visible.
  add(rules, "clone", EPERM, "a helper starts no process once confined", {{0, Cmp::MaskedEq, CLONE_THREAD, 0}});
  add_all(rules, {"unshare", "chroot"}, "a helper keeps the namespaces and root it was started in");
  add_all(rules, {"open_by_handle_at"}, "opening a file by handle bypasses path-based rules");
  add_all(rules, {"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"},
          "a helper's Landlock domain is made before its filter");
  return rules;
}

std::string describe(const Rule& rule) {
  std::string out = rule.syscall + ": ";
  const char* name = ::strerrorname_np(rule.errno_value);
  out += name ? name : "errno " + std::to_string(rule.errno_value);
  const char* sep = " if ";
  for (const ArgCondition& c : rule.conditions) {
    char buf[96];
    unsigned long long value = c.value, mask = c.mask;
    switch (c.op) {
      case Cmp::Eq: std::snprintf(buf, sizeof buf, "a%u == 0x%llx", c.arg, value); break;
      case Cmp::MaskedEq: std::snprintf(buf, sizeof buf, "a%u & 0x%llx == 0x%llx", c.arg, mask, value); break;
      case Cmp::Gt: std::snprintf(buf, sizeof buf, "a%u > 0x%llx", c.arg, value); break;
      case Cmp::Lt: std::snprintf(buf, sizeof buf, "a%u < 0x%llx", c.arg, value); break;
    }
    out += sep;
    out += buf;
    sep = " && ";
  }
  return out;
}

std::string rules_digest(const std::vector<Rule>& rules) {
  std::string lines;
  for (const Rule& r : rules) lines += describe(r) + '\n';
  return sha256_hex(lines);
}

}  // namespace cordon::seccomp
