#include "probe/exec_inspect.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/unique_fd.h"
#include "probe/util.h"

namespace cordon::probe {
namespace {

uint64_t hex64(const std::string& text) { return std::strtoull(text.c_str(), nullptr, 16); }

// Fills the pipe, then makes it blocking again: the child's first write must block.
void fill_pipe(int write_end) {
  ::fcntl(write_end, F_SETPIPE_SZ, 4096);
  ::fcntl(write_end, F_SETFL, O_NONBLOCK);
  char chunk[4096];
  std::memset(chunk, 'x', sizeof chunk);
  for (int i = 0; i < 1024 && ::write(write_end, chunk, sizeof chunk) > 0; ++i) {
  }
  while (::write(write_end, chunk, 1) > 0) {
  }
  ::fcntl(write_end, F_SETFL, 0);
}

// The forked child: output into the full pipe, optionally no capabilities, then the binary.
[[noreturn]] void exec_child(const std::string& path, bool drop_caps, int write_end) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  int null = ::open("/dev/null", O_RDONLY);
  if (null >= 0) ::dup2(null, 0);
  ::dup2(write_end, 1);
  ::dup2(write_end, 2);
  if (drop_caps) {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    ::syscall(SYS_capset, &header, data);
  }
  const char* argv[] = {path.c_str(), "--help", nullptr};
  char* envp[] = {const_cast<char*>("LC_ALL=C"), nullptr};
  ::execve(path.c_str(), const_cast<char* const*>(argv), envp);
  ::_exit(127);
}

// Reads the child's credentials once it has exec'd (its name differs from ours) and blocks.
bool inspect_blocked(pid_t child, const std::string& own_comm, ExecInspection& out) {
  auto name = status_field(child, "Name");
  auto state = status_field(child, "State");
  if (!name || !state || *name == own_comm || state->empty() || (state->at(0) != 'S' && state->at(0) != 'D'))
    return false;
  auto uid = status_field(child, "Uid");
  auto eff = status_field(child, "CapEff");
  auto prm = status_field(child, "CapPrm");
  if (!uid || !eff || !prm) return false;
  unsigned long r = 0, e = 0;
  std::sscanf(uid->c_str(), "%lu %lu", &r, &e);
  out.euid = static_cast<uid_t>(e);
  out.cap_eff = hex64(*eff);
  out.cap_prm = hex64(*prm);
  out.name = *name;
  out.inspected = true;
  return true;
}

}  // namespace

ExecInspection exec_and_inspect(const std::string& path, bool drop_caps, int timeout_ms) {
  ExecInspection out;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) {
    out.why = "pipe: " + errno_name(errno);
    return out;
  }
  UniqueFd read_end(p[0]);
  UniqueFd write_end(p[1]);
  fill_pipe(write_end.get());
  const std::string own_comm = printable(read_text("/proc/self/comm", 64).value_or(""), 32);
  pid_t child = ::fork();
  if (child < 0) {
    out.why = "fork: " + errno_name(errno);
    return out;
  }
  if (child == 0) exec_child(path, drop_caps, write_end.get());
  write_end.reset();
  const double deadline = now_ms() + timeout_ms;
  int wstatus = 0;
  bool reaped = false;
  while (now_ms() < deadline) {
    if (::waitpid(child, &wstatus, WNOHANG) == child) {
      reaped = true;
      break;
    }
    if (inspect_blocked(child, own_comm, out)) break;
    ::usleep(2000);
  }
  if (!reaped) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &wstatus, 0);
  }
  if (!out.inspected) {
    if (reaped && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127) out.why = "exec failed";
    else if (reaped) out.why = "it exited before it could be inspected";
    else out.why = "it did not block on output within " + std::to_string(timeout_ms) + " ms";
  }
  return out;
}

}  // namespace cordon::probe
