#include "landlock_exec/apply.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/error.h"
#include "common/landlock_abi.h"
#include "common/landlock_rules.h"
#include "common/text.h"

namespace cordon::landlock {
namespace {

constexpr size_t kRulesFileLimit = 1 << 22;  // 4096 rules of at most PATH_MAX bytes

// A rule on a path of the plan. A path this process cannot reach (ENOENT, or EACCES below a
// directory another user keeps closed) is skipped: with no capabilities and no new privileges
// the session can never reach it either, so no right is lost. Anything else fails the step.
std::string add_planned_rule(int ruleset, const LandlockRule& rule) {
  bool opened = false;
  const int err = add_rule_at_path(ruleset, rule.path, rule.access, &opened);
  if (err == 0 || (!opened && (err == ENOENT || err == EACCES))) return "";
  return errno_text((opened ? "landlock_add_rule " : "open ") + terminal_safe(rule.path), err);
}

// The session's own stdin, stdout and stderr, reopened by path (`> /dev/stdout`, `tee
// /dev/stderr` go through /proc/self/fd, to the launcher's pty or a host file, which lie under
// no rule): each gets what its descriptor already allows (a shell's `>` truncates, which a
// writable descriptor can do with ftruncate anyway). Pipes and sockets need none.
void add_stdio_rules(int ruleset, uint64_t handled) {
  for (int fd = 0; fd <= 2; ++fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) continue;
    uint64_t mask = 0;
    if (S_ISCHR(st.st_mode)) {
      mask = kAccessFsReadFile | kAccessFsWriteFile | kAccessFsTruncate | kAccessFsIoctlDev;
    } else if (S_ISREG(st.st_mode)) {
      const int mode = ::fcntl(fd, F_GETFL) & O_ACCMODE;
      const uint64_t write = kAccessFsWriteFile | kAccessFsTruncate;
      mask = mode == O_RDONLY ? kAccessFsReadFile : mode == O_WRONLY ? write : kAccessFsReadFile | write;
    }
    if ((mask & handled) != 0) add_path_rule(ruleset, fd, mask & handled);  // best effort: the fd keeps working
  }
}

}  // namespace

std::string enforce_rules_file(const std::string& rules_path) {
  auto text = read_regular_file(rules_path, kRulesFileLimit);
  if (!text) return errno_text("read " + rules_path, errno);
  std::string problem;
  auto rules = parse_rules(*text, &problem);
  if (!rules) return rules_path + ": " + problem;
  const Support kernel = landlock_abi();
  if (kernel.abi < rules->abi)
    return "the rules were planned for Landlock ABI " + std::to_string(rules->abi) + ", the kernel has " +
           std::to_string(kernel.abi) + (kernel.problem.empty() ? "" : " (" + kernel.problem + ")");
  // Landlock needs no_new_privs (bwrap set it already; asking again is harmless).
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno_text("prctl(PR_SET_NO_NEW_PRIVS)", errno);
  RulesetAttr attr{};
  attr.handled_access_fs = rules->handled_fs;
  attr.scoped = rules->scoped;
  FdResult ruleset = create_ruleset(attr);
  if (!ruleset.fd.valid()) return errno_text("landlock_create_ruleset", ruleset.error);
  for (const LandlockRule& rule : rules->rules)
    if (std::string failed = add_planned_rule(ruleset.fd.get(), rule); !failed.empty()) return failed;
  add_stdio_rules(ruleset.fd.get(), rules->handled_fs);
  if (int err = restrict_self(ruleset.fd.get()); err != 0) return errno_text("landlock_restrict_self", err);
  return "";
}

}  // namespace cordon::landlock
