// cordon-egress-proxy (libexec) as the launcher's own child, for network.mode = "allowlist":
// it accepts on a listening socket that lives in the sandbox's network namespace and connects
// out from the launcher's. Tied to the session like pasta: the kernel kills it when the
// launcher dies (PR_SET_PDEATHSIG, SIGKILL included), the launcher ends and reaps it at
// teardown. Its decisions (one JSON line each) and its own messages go to memfds the launcher
// reads afterwards: nothing of it is written to disk or to the operator's terminal.
#pragma once

#include <string>
#include <vector>

#include "common/unique_fd.h"
#include "launcher/process/child_process.h"

namespace cordon::proxy {

struct ProxyArgs {
  std::vector<std::string> allow, deny;  // egress rules (common/egress_rules.h)
  std::vector<std::string> refuse;       // CIDRs answers may not resolve into (the host's subnets)
  std::vector<std::string> extra;        // further options, e.g. a test weakening
  // The proxy's own Landlock domain, as [sandbox] landlock says ("auto", "required", "off";
  // egress_proxy/confine.h); its seccomp filter is applied whatever this says.
  std::string landlock = "auto";
};

class EgressProxy {
 public:
  EgressProxy() = default;
  ~EgressProxy() { stop(); }
  EgressProxy(const EgressProxy&) = delete;
  EgressProxy& operator=(const EgressProxy&) = delete;

  // Starts the proxy on `listen_fd` (kept open in the proxy only). Throws cordon::Error.
  void start(const std::string& proxy_path, UniqueFd listen_fd, const ProxyArgs& args);
  // SIGTERM (the proxy records its open connections and exits), then SIGKILL after a bound;
  // reaps it. Returns what went wrong ("" = clean). Idempotent.
  std::string stop();
  // After stop(): the decision log (JSON lines) and the proxy's own messages.
  std::string decisions() const;
  std::string messages() const;

 private:
  UniqueFd log_, messages_, pidfd_;
  ChildProcess process_;
};

// The proxy's argv (pure; tests call it). The listening socket is fd 3, the log fd 4.
std::vector<std::string> proxy_argv(const std::string& proxy_path, const ProxyArgs& args);

}  // namespace cordon::proxy
