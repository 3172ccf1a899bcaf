// Kernel surface (80-86): interfaces with a long record of privilege escalations. Each
// attempt is the smallest call that passes the kernel's permission check and then stops:
// a tiny BPF map, a software perf counter on ourselves, a keyring id lookup, a user-mode
// userfaultfd, a one-entry io_uring. kexec and module loading are given arguments the kernel
// rejects *after* its capability check (EINVAL / EBADF), so passing the check is visible
// without loading anything.
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/kexec.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "probe/context.h"
#include "probe/internal.h"
#include "probe/probe.h"
#include "probe/uring.h"
#include "probe/util.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef KEXEC_SEGMENT_MAX
#define KEXEC_SEGMENT_MAX 16
#endif

namespace cordon::probe {

// Verdict for a syscall given arguments the kernel refuses after its permission check.
// Exposed for --selftest: `gate_errno` is what the kernel returns once the gate is passed.
Verdict classify_gated(long result, int err, int gate_errno, std::string* text) {
  if (result >= 0 || err == gate_errno) {
    *text = result >= 0 ? "succeeded" : errno_name(err) + " after the permission check (the gate is open)";
    return Verdict::Escaped;
  }
  if (err == ENOSYS) {
    *text = "ENOSYS (not in this kernel, or refused as absent)";
    return Verdict::Blocked;
  }
  if (err == EPERM || err == EACCES) {
    *text = errno_name(err);
    return Verdict::Blocked;
  }
  *text = errno_name(err) + " (unexpected)";
  return Verdict::Inconclusive;
}

namespace {

void simple(long r, int err, const std::string& what, const std::string& success, Tally& tally) {
  if (r >= 0) tally.escaped(what + ": " + success);
  else if (err == EPERM || err == EACCES || err == ENOSYS) tally.blocked(what + ": " + errno_name(err));
  else tally.inconclusive(what + ": " + errno_name(err));
}

// 80 -----------------------------------------------------------------------------------
void probe_bpf(const Context&, Tally& tally) {
  bpf_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.map_type = BPF_MAP_TYPE_ARRAY;
  attr.key_size = 4;
  attr.value_size = 4;
  attr.max_entries = 1;
  long fd = ::syscall(__NR_bpf, BPF_MAP_CREATE, &attr, sizeof attr);
  int err = errno;
  if (fd >= 0) ::close(static_cast<int>(fd));
  simple(fd, err, "bpf(BPF_MAP_CREATE)", "a BPF map was created", tally);
}

// 81 -----------------------------------------------------------------------------------
void probe_perf(const Context&, Tally& tally) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  long fd = ::syscall(__NR_perf_event_open, &attr, 0 /* self */, -1, -1, PERF_FLAG_FD_CLOEXEC);
  int err = errno;
  if (fd >= 0) ::close(static_cast<int>(fd));
  simple(fd, err, "perf_event_open(self, task clock)", "a perf event was opened", tally);
}

// 82 -----------------------------------------------------------------------------------
void probe_keyctl(const Context&, Tally& tally) {
  long id = ::syscall(__NR_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0);
  int err = errno;
  simple(id, err, "keyctl(GET_KEYRING_ID, user keyring)", "the user keyring (shared with the host login) is reachable",
         tally);
  long sid = ::syscall(__NR_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
  err = errno;
  simple(sid, err, "keyctl(GET_KEYRING_ID, session keyring)", "the session keyring is reachable", tally);
}

// 83 -----------------------------------------------------------------------------------
void probe_userfaultfd(const Context&, Tally& tally) {
  long fd = ::syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
  int err = errno;
  if (fd >= 0) ::close(static_cast<int>(fd));
  simple(fd, err, "userfaultfd(UFFD_USER_MODE_ONLY)", "a userfaultfd was created", tally);
}

// 84 -----------------------------------------------------------------------------------
void probe_io_uring(const Context&, Tally& tally) {
  auto r = uring::setup(1);
  if (r.fd >= 0) ::close(r.fd);
  simple(r.fd, r.err, "io_uring_setup(1)", "a ring was created", tally);
}

// 85 -----------------------------------------------------------------------------------
void probe_kexec(const Context&, Tally& tally) {
  std::string text;
  // More segments than the kernel allows: EINVAL, but only once CAP_SYS_BOOT was granted.
  long r = ::syscall(__NR_kexec_load, 0UL, static_cast<unsigned long>(KEXEC_SEGMENT_MAX + 1), nullptr, 0UL);
  Verdict v = classify_gated(r, errno, EINVAL, &text);
  tally.add(v, "kexec_load(too many segments): " + text);
#ifdef __NR_kexec_file_load
  // No kernel file (fd -1): EBADF after the same check.
  r = ::syscall(__NR_kexec_file_load, -1, -1, 0UL, nullptr, 0UL);
  v = classify_gated(r, errno, EBADF, &text);
  tally.add(v, "kexec_file_load(fd -1): " + text);
#endif
}

// 86 -----------------------------------------------------------------------------------
void probe_module(const Context&, Tally& tally) {
  std::string text;
  long r = ::syscall(__NR_finit_module, -1, "", 0);
  Verdict v = classify_gated(r, errno, EBADF, &text);
  tally.add(v, "finit_module(fd -1): " + text);
  // An empty image: ENOEXEC once CAP_SYS_MODULE was granted.
  r = ::syscall(__NR_init_module, nullptr, 0UL, "");
  v = classify_gated(r, errno, ENOEXEC, &text);
  tally.add(v, "init_module(empty image): " + text);
}

}  // namespace

std::vector<ProbeDef> kernel_probes() {
  return {
      {"80", "kern-bpf", "kernel", "bpf(BPF_MAP_CREATE) of a one-entry array", "EPERM", probe_bpf},
      {"81", "kern-perf-event", "kernel", "perf_event_open on ourselves (user-space task clock)", "EPERM / EACCES",
       probe_perf},
      {"82", "kern-keyctl", "kernel", "look up the user and session keyrings", "EPERM", probe_keyctl},
      {"83", "kern-userfaultfd", "kernel", "userfaultfd(UFFD_USER_MODE_ONLY)", "EPERM", probe_userfaultfd},
      {"84", "kern-io-uring", "kernel", "io_uring_setup", "EPERM", probe_io_uring},
      {"85", "kern-kexec", "kernel", "kexec_load / kexec_file_load past the capability check", "EPERM or ENOSYS",
       probe_kexec},
      {"86", "kern-module-load", "kernel", "finit_module / init_module past the capability check", "EPERM or ENOSYS",
       probe_module},
  };
}

}  // namespace cordon::probe
