#include "egress_proxy/confine.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "common/drop_capabilities.h"
#include "common/error.h"
#include "common/landlock_abi.h"
#include "common/print.h"
#include "common/seccomp_compile.h"
#include "common/seccomp_install.h"
#include "common/unique_fd.h"

namespace cordon::egress {
namespace {

// NSS's, the resolver's and the loader's files: read by path at each lookup (the resolver
// re-reads resolv.conf when it changes), so each is granted where it is now.
constexpr const char* kResolutionFiles[] = {"/etc/resolv.conf", "/etc/hosts",    "/etc/nsswitch.conf",
                                            "/etc/host.conf",   "/etc/gai.conf", "/etc/ld.so.cache"};
// Where an NSS module (libnss_*.so) named in nsswitch.conf is loaded from on first use.
// Reading a library maps it executable without the EXECUTE right (that is execve's).
constexpr const char* kLibraryDirs[] = {"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib"};

}  // namespace

std::vector<landlock::PathGrant> resolution_grants(const std::string& resolv_target) {
  std::vector<landlock::PathGrant> grants;
  for (const char* file : kResolutionFiles) grants.push_back({file, landlock::kAccessFsReadFile});
  if (!resolv_target.empty()) grants.push_back({resolv_target, landlock::kAccessFsReadFile});
  for (const char* dir : kLibraryDirs) grants.push_back({dir, landlock::kAccessFsReadFile});
  return grants;
}

landlock::HelperDomain confine_proxy(const Options& options) {
  landlock::HelperDomain domain;
  if (options.test_no_confine) return domain;  // test builds only (options.cpp)
  // It needs none (its socket is inherited, what it reads is world-readable): a proxy a root
  // launcher started keeps none of root's, CAP_NET_ADMIN in the host's namespace among them.
  if (int err = drop_all_capabilities(); err != 0)
    throw Error(errno_text("the egress proxy could not give up its capabilities (capset)", err));
  if (options.landlock != LandlockMode::Off) {
    char target[PATH_MAX];
    std::string resolv_target;
    if (::realpath("/etc/resolv.conf", target) && std::string(target) != "/etc/resolv.conf") resolv_target = target;
    landlock::HelperRuleset ruleset;
    ruleset.grants = resolution_grants(resolv_target);
    ruleset.scopes = landlock::kScopeAbstractUnixSocket | landlock::kScopeSignal;
    domain = landlock::enter_helper_domain(ruleset, options.test_landlock_abi);
    if (!domain.applied && options.landlock == LandlockMode::Required)
      throw Error("[sandbox] landlock = \"required\", but the egress proxy could not enter its Landlock domain: " +
                      domain.problem,
                  "run on a kernel with Landlock enabled (Linux 5.13 or later, landlock in lsm=), or set "
                  "[sandbox] landlock = \"auto\" to run the proxy without it");
    // "auto" tolerates a kernel without Landlock, not a domain its kernel refused to make.
    if (!domain.applied && domain.abi >= 1)
      throw Error("the egress proxy could not enter its Landlock domain: " + domain.problem,
                  "report it; [sandbox] landlock = \"off\" runs the proxy without the domain meanwhile");
  }
  // The filter last: it denies the landlock_* calls the domain above needed.
  const std::vector<sock_filter> program = seccomp::compile_program(seccomp::build_helper_rules());
  if (int err = seccomp::install_program(program); err != 0)
    throw Error(errno_text("the egress proxy could not install its seccomp filter", err),
                "a seccomp filter above cordon (a container's profile) may refuse seccomp(2); allow it");
  return domain;
}

void run_test_probes(const Options& options) {
  if (options.test_probe_open.empty() && options.test_probe_abstract.empty()) return;
  std::string lines;
  if (!options.test_probe_open.empty()) {
    UniqueFd fd(::open(options.test_probe_open.c_str(), O_RDONLY | O_CLOEXEC));
    lines += "probe open " + options.test_probe_open + ": " + errno_name(fd.valid() ? 0 : errno) + "\n";
    UniqueFd hosts(::open("/etc/hosts", O_RDONLY | O_CLOEXEC));
    lines += "probe open /etc/hosts: " + errno_name(hosts.valid() ? 0 : errno) + "\n";
  }
  // A program that does not exist: the filter answers EPERM before the path is looked up,
  // without it the kernel says ENOENT (and nothing runs either way).
  char* no_args[] = {nullptr};
  ::execve("/nonexistent/cordon-probe-exec", no_args, no_args);
  lines += "probe exec: " + errno_name(errno) + "\n";
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  lines += "probe fork: " + errno_name(child < 0 ? errno : 0) + "\n";
  if (child > 0) ::waitpid(child, nullptr, 0);
  lines += std::string("probe capabilities: ") + (holds_capabilities() ? "some" : "none") + "\n";
  lines += "probe signal parent: " + errno_name(::kill(::getppid(), 0) == 0 ? 0 : errno) + "\n";
  if (!options.test_probe_abstract.empty()) {
    UniqueFd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un at{};
    at.sun_family = AF_UNIX;
    const std::string& name = options.test_probe_abstract;
    std::memcpy(at.sun_path + 1, name.data(), std::min(name.size(), sizeof at.sun_path - 1));
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    const int rc = s.valid() ? ::connect(s.get(), reinterpret_cast<sockaddr*>(&at), len) : -1;
    lines += "probe abstract " + name + ": " + errno_name(rc == 0 ? 0 : errno) + "\n";
  }
  print_err(lines);
}

}  // namespace cordon::egress
