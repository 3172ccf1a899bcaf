// cordon-egress-proxy: the allow-list egress proxy of `[network] mode = "allowlist"`. The
// launcher runs it OUTSIDE the sandbox, in the host's network namespace, handing it a socket
// listening inside the sandbox's namespace; every outbound connection of the sandbox goes
// through here. Exit status: 0 after SIGTERM/SIGINT, 64 usage error, 125 setup failure.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "common/egress_rules.h"
#include "common/error.h"
#include "common/print.h"
#include "common/text.h"
#include "egress_proxy/address_policy.h"
#include "egress_proxy/confine.h"
#include "egress_proxy/decision_log.h"
#include "egress_proxy/options.h"
#include "egress_proxy/server.h"

namespace {

using cordon::Error;

// The inherited fds must be what they claim, and must not leak into anything exec'd later.
void check_fds(const cordon::egress::Options& o) {
  int listening = 0;
  socklen_t len = sizeof listening;
  if (::getsockopt(o.listen_fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening)
    throw Error("--listen-fd " + std::to_string(o.listen_fd) + " is not a listening socket",
                "pass the fd of a socket after listen(2)", 64);
  if (::fcntl(o.log_fd, F_GETFD) < 0)
    throw Error("--log-fd " + std::to_string(o.log_fd) + " is not open", "pass an fd open for writing", 64);
  for (int fd : {o.listen_fd, o.log_fd}) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  ::fcntl(o.listen_fd, F_SETFL, ::fcntl(o.listen_fd, F_GETFL) | O_NONBLOCK);
}

// SIGTERM/SIGINT arrive on a signalfd the accept loop polls; blocked before any thread
// starts, so every thread inherits the mask and none is interrupted by them.
cordon::UniqueFd block_signals() {
  std::signal(SIGPIPE, SIG_IGN);  // sends use MSG_NOSIGNAL; splice to a closed socket does not
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  if (::pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) throw Error("cannot block SIGTERM");
  cordon::UniqueFd fd(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!fd.valid()) throw Error(cordon::errno_text("signalfd", errno));
  return fd;
}

int run(int argc, char** argv) {
  using namespace cordon::egress;
  Options options = parse_options(std::vector<std::string>(argv + 1, argv + argc));
  if (options.help) {
    cordon::print_out(usage_text());
    return 0;
  }
  // The proxy needs no privilege it does not already hold; nothing it runs may gain one.
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  cordon::EgressRules rules(options.allow, options.deny, "--allow", "--deny");
  AddressPolicy policy(rules, options.refuse);
  check_fds(options);
  // Confined while it is still one thread: every connection's thread inherits the domain and
  // the filter (neither reaches threads that exist already).
  confine_proxy(options);
  run_test_probes(options);
  cordon::UniqueFd signals = block_signals();
  DecisionLog log(options.log_fd, options.max_log_bytes);
  ServeContext ctx{options, rules, policy, log};
  size_t stragglers = 0;
  {
    Server server(ctx, options.listen_fd, signals.get());
    stragglers = server.run();
  }
  ::close(options.listen_fd);
  log.finish();  // after every connection's record, the stragglers' "session ended" included
  // Threads stuck in getaddrinfo cannot be joined; their records are written: leave now.
  if (stragglers > 0) std::_Exit(0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const Error& e) {
    cordon::print_err(std::string("cordon-egress-proxy: ") + cordon::terminal_safe(e.what()) + "\n");
    if (!e.fix().empty()) cordon::print_err("  " + cordon::terminal_safe(e.fix()) + "\n");
    return e.exit_code() == cordon::kExitConfigError ? 64 : e.exit_code();
  } catch (const std::exception& e) {
    cordon::print_err(std::string("cordon-egress-proxy: ") + cordon::terminal_safe(e.what()) + "\n");
    return cordon::kExitLaunchRefused;
  }
}
