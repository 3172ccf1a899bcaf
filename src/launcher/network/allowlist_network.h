// network.mode = "allowlist" as a launch stage. The forked holder enters a new user + network
// namespace (loopback only: no pasta, no route out), brings loopback up, listens on
// 127.0.0.1:3128 there and hands the listening socket to the launcher, then goes on to exec
// bwrap (which keeps this network). The launcher starts cordon-egress-proxy outside with that
// socket: the proxy accepts the sandbox's connections in the sandbox's namespace and connects
// out from the launcher's, admitting only the allow-listed destinations. The command waits at
// the command gate until the proxy runs. Nothing else can leave: there is no interface but
// loopback and no resolver (the proxy resolves the names it admits).
//
//   launcher (parent)                       holder (forked child)
//   check the proxy binary, make a socketpair
//   fork -----------------------------------> unshare(USER|NET), map ids, lo up,
//                                             listen 127.0.0.1:3128, send the socket
//   receive the socket <--------------------- (SCM_RIGHTS); exec bwrap (waits at the gate)
//   start the proxy on it; open the gate ---> the command runs
//   ... sandbox runs ...
//   after exit: SIGTERM the proxy (it records open connections), reap it, read its log,
//   check no process is left in the namespace
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "common/unique_fd.h"
#include "launcher/network/proxy_process.h"
#include "launcher/process/launch_stage.h"

namespace cordon::proxy {

// libexec/cordon/cordon-egress-proxy next to the running cordon, checked before anything
// forks. Throws cordon::Error naming the fix (reinstall) or the opt-out.
std::string check_allowlist_prerequisites(const std::string& libexec_dir, const std::string& config_path);

class AllowlistNetwork : public LaunchStage {
 public:
  // `own_namespace` false only for the test weakening allowlist-host-net.
  AllowlistNetwork(std::string proxy_path, ProxyArgs args, bool own_namespace = true);
  ~AllowlistNetwork() override;
  AllowlistNetwork(const AllowlistNetwork&) = delete;
  AllowlistNetwork& operator=(const AllowlistNetwork&) = delete;

  void in_child(const ChildSide& side) override;
  void after_fork(pid_t child) override;
  void after_exit() override;

  // After after_exit() (or a failed launch): the proxy's decisions, one JSON line each.
  const std::string& decisions() const { return decisions_; }

 private:
  std::string proxy_path_;
  ProxyArgs args_;
  bool own_namespace_;
  uid_t uid_;
  gid_t gid_;
  UniqueFd launcher_end_, holder_end_;  // the socketpair the listening socket crosses
  std::unique_ptr<EgressProxy> proxy_;
  std::string decisions_;
  dev_t netns_dev_ = 0;  // the holder's network namespace, to check at teardown that nothing
  ino_t netns_ino_ = 0;  // still uses it
};

}  // namespace cordon::proxy
