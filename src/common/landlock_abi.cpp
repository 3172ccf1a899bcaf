#include "common/landlock_abi.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "common/error.h"
#include "common/unique_fd.h"

namespace cordon::landlock {

namespace {

// One right or scope, its name, and the ABI that brought it.
struct Named {
  uint64_t bit;
  const char* name;
  int since;
};

constexpr Named kFsRights[] = {
    {kAccessFsExecute, "execute", 1},    {kAccessFsWriteFile, "write_file", 1}, {kAccessFsReadFile, "read_file", 1},
    {kAccessFsReadDir, "read_dir", 1},   {kAccessFsRemoveDir, "remove_dir", 1}, {kAccessFsRemoveFile, "remove_file", 1},
    {kAccessFsMakeChar, "make_char", 1}, {kAccessFsMakeDir, "make_dir", 1},     {kAccessFsMakeReg, "make_reg", 1},
    {kAccessFsMakeSock, "make_sock", 1}, {kAccessFsMakeFifo, "make_fifo", 1},   {kAccessFsMakeBlock, "make_block", 1},
    {kAccessFsMakeSym, "make_sym", 1},   {kAccessFsRefer, "refer", 2},          {kAccessFsTruncate, "truncate", 3},
    {kAccessFsIoctlDev, "ioctl_dev", 5},
};

constexpr Named kScopes[] = {
    {kScopeAbstractUnixSocket, "abstract_unix_socket", 6},
    {kScopeSignal, "signal", 6},
};

template <size_t N>
uint64_t bits_since(const Named (&table)[N], int abi) {
  uint64_t mask = 0;
  for (const Named& n : table)
    if (abi >= n.since) mask |= n.bit;
  return mask;
}

template <size_t N>
std::vector<std::string> names_of(const Named (&table)[N], uint64_t mask) {
  std::vector<std::string> names;
  for (int bit = 0; bit < 64; ++bit) {
    const uint64_t b = 1ULL << bit;
    if ((mask & b) == 0) continue;
    const char* name = nullptr;
    for (const Named& n : table)
      if (n.bit == b) name = n.name;
    names.emplace_back(name ? name : "bit " + std::to_string(bit));
  }
  return names;
}

// What a failed version query means, and where the fix lies.
std::string problem_for(int err) {
  switch (err) {
    case ENOSYS:
      return "this kernel has no Landlock (it needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK), "
             "or a seccomp filter (a container's profile) refuses the landlock_* system calls (ENOSYS)";
    case EOPNOTSUPP:
      return "Landlock is built into this kernel but not enabled: add landlock to the lsm= boot parameter "
             "(EOPNOTSUPP)";
    default: return errno_text("landlock_create_ruleset(VERSION)", err);
  }
}

long create_ruleset_call(const RulesetAttr* attr, size_t size, uint32_t flags) {
  return ::syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

}  // namespace

Support landlock_abi() {
  Support s;
  const long abi = create_ruleset_call(nullptr, 0, kCreateRulesetVersion);
  if (abi < 0) {
    s.error = errno;
    s.problem = problem_for(s.error);
    return s;
  }
  s.abi = static_cast<int>(abi);
  // A kernel without the errata query answers EINVAL: no erratum known fixed.
  const long errata = create_ruleset_call(nullptr, 0, kCreateRulesetErrata);
  if (errata > 0) s.errata = static_cast<uint32_t>(errata);
  return s;
}

uint64_t handled_fs_for_abi(int abi) { return bits_since(kFsRights, abi); }

uint64_t scopes_for_abi(int abi) { return bits_since(kScopes, abi); }

std::vector<std::string> access_names(uint64_t fs_mask) { return names_of(kFsRights, fs_mask); }

std::vector<std::string> scope_names(uint64_t scopes) { return names_of(kScopes, scopes); }

std::vector<std::string> unavailable_at(int abi) {
  std::vector<std::string> missing;
  if (abi < 1) missing.emplace_back("filesystem access rights (ABI 1)");
  if (abi < 2) missing.emplace_back("refer (ABI 2)");
  if (abi < 3) missing.emplace_back("truncate (ABI 3)");
  if (abi < 5) missing.emplace_back("device ioctl (ABI 5)");
  if (abi < 6) missing.emplace_back("abstract unix socket and signal scopes (ABI 6)");
  return missing;
}

FdResult create_ruleset(const RulesetAttr& attr) {
  FdResult r;
  const long fd = create_ruleset_call(&attr, sizeof(attr), 0);
  if (fd < 0) r.error = errno;
  else r.fd.reset(static_cast<int>(fd));
  return r;
}

int add_path_rule(int ruleset_fd, int path_fd, uint64_t mask) {
  PathBeneathAttr attr;
  attr.allowed_access = mask;
  attr.parent_fd = path_fd;
  return ::syscall(SYS_landlock_add_rule, ruleset_fd, kRulePathBeneath, &attr, 0) == 0 ? 0 : errno;
}

int add_rule_at_path(int ruleset_fd, const std::string& path, uint64_t access, bool* opened) {
  UniqueFd fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (opened) *opened = fd.valid();
  if (!fd.valid()) return errno;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return errno;
  const uint64_t mask = S_ISDIR(st.st_mode) ? access : access & kAccessFsFileRights;
  return mask == 0 ? 0 : add_path_rule(ruleset_fd, fd.get(), mask);
}

int restrict_self(int ruleset_fd, uint32_t flags) {
  return ::syscall(SYS_landlock_restrict_self, ruleset_fd, flags) == 0 ? 0 : errno;
}

}  // namespace cordon::landlock
