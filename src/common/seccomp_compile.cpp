#include "common/seccomp_compile.h"

#include <seccomp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>
#include <string_view>

#include "common/error.h"
#include "common/memfd.h"

namespace cordon::seccomp {
namespace {

struct CtxDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};
using FilterCtx = std::unique_ptr<void, CtxDeleter>;  // scmp_filter_ctx is void*

// Syscalls that some architectures do not have (libseccomp resolves them to a negative
// pseudo number there): e.g. i386 has no kexec_file_load. Any other name that does not
// resolve is a bug in the table and fails the build of the filter.
constexpr std::string_view kMayBeAbsent[] = {"kexec_file_load"};

const char* const kFix = "this is a bug in cordon's seccomp table or libseccomp; report it";

// libseccomp returns -errno.
[[noreturn]] void fail(const std::string& what, int rc) { throw Error(errno_text("seccomp: " + what, -rc), kFix); }

scmp_compare to_scmp(Cmp op) {
  switch (op) {
    case Cmp::Eq: return SCMP_CMP_EQ;
    case Cmp::MaskedEq: return SCMP_CMP_MASKED_EQ;
    case Cmp::Gt: return SCMP_CMP_GT;
    case Cmp::Lt: return SCMP_CMP_LT;
  }
  throw Error("seccomp: unknown comparison operator", kFix);
}

}  // namespace

UniqueFd compile_to_memfd(const std::vector<Rule>& rules) {
  FilterCtx ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) throw Error("seccomp: seccomp_init failed (out of memory?)", kFix);
  // A syscall entered through another ABI (i386 `int 0x80`, x32 numbers) would bypass rules
  // written for native numbers: kill the whole process instead.
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS))
    fail("setting the bad-architecture action to KILL_PROCESS", rc);

  for (const Rule& rule : rules) {
    const std::string line = describe(rule);
    int nr = seccomp_syscall_resolve_name(rule.syscall.c_str());
    if (nr == __NR_SCMP_ERROR) throw Error("seccomp: unknown syscall name in rule '" + line + "'", kFix);
    if (nr < 0) {  // a known syscall this architecture lacks
      bool may_skip = false;
      for (std::string_view s : kMayBeAbsent) may_skip |= (s == rule.syscall);
      if (may_skip) continue;
      throw Error("seccomp: syscall in rule '" + line + "' does not exist on this architecture", kFix);
    }
    std::vector<scmp_arg_cmp> cmps;
    for (const ArgCondition& c : rule.conditions) {
      // MASKED_EQ takes (mask, value); the others take (value, unused).
      const bool masked = c.op == Cmp::MaskedEq;
      cmps.push_back(scmp_arg_cmp{c.arg, to_scmp(c.op), masked ? c.mask : c.value, masked ? c.value : 0});
    }
    // _exact: fail rather than let libseccomp silently rewrite the rule.
    if (int rc = seccomp_rule_add_exact_array(ctx.get(), SCMP_ACT_ERRNO(rule.errno_value), nr,
                                              static_cast<unsigned>(cmps.size()), cmps.data()))
      fail("adding rule '" + line + "'", rc);
  }

  // libseccomp 2.5.4 has no seccomp_export_bpf_mem: export into the memfd directly.
  UniqueFd fd = create_memfd("cordon-seccomp");
  if (int rc = seccomp_export_bpf(ctx.get(), fd.get())) fail("exporting BPF", rc);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw Error(errno_text("seccomp: fstat of BPF memfd", errno));
  if (st.st_size <= 0 || st.st_size % 8 != 0)
    throw Error("seccomp: exported BPF has invalid size " + std::to_string(st.st_size), kFix);
  seal_and_rewind(fd.get(), "cordon-seccomp");
  return fd;
}

std::vector<sock_filter> compile_program(const std::vector<Rule>& rules) {
  UniqueFd fd = compile_to_memfd(rules);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw Error(errno_text("seccomp: fstat of BPF memfd", errno));
  std::vector<sock_filter> program(static_cast<size_t>(st.st_size) / sizeof(sock_filter));
  const size_t bytes = program.size() * sizeof(sock_filter);
  if (::pread(fd.get(), program.data(), bytes, 0) != static_cast<ssize_t>(bytes))
    throw Error(errno_text("seccomp: reading the exported BPF", errno), kFix);
  return program;
}

}  // namespace cordon::seccomp
