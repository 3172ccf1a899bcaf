// The session's network, owned here from configuration to teardown: the one place that decides
// on [network] mode. plan_network() turns the [network] section and the host's network facts
// into a NetworkPlan, a variant with one alternative per mode; network_section() is what the
// mode adds to the sandbox (its namespace, its environment, its resolv.conf, its part of the
// session file, whether the command waits for a launch stage); NetworkLaunch checks the mode's
// prerequisites and runs its launch stage (the jail's pasta and routes, the allowlist's proxy).
// Everything but NetworkLaunch is pure.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/intent.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/network_facts.h"
#include "launcher/network/egress_decisions.h"
#include "launcher/network/jail_plan.h"
#include "launcher/process/launch_stage.h"
#include "launcher/section/section.h"

namespace cordon::jail {
class EgressJail;
}
namespace cordon::proxy {
class AllowlistNetwork;
}

namespace cordon::network {

// mode = "host": the launcher's own network namespace, unconfined (labelled so everywhere).
struct HostMode {};

// mode = "jail": a namespace of the session's own behind pasta, with the plan's routes.
struct JailMode {
  jail::JailPlan jail;
};

// mode = "allowlist": loopback only; cordon's proxy is the one way out.
struct AllowlistMode {
  std::vector<std::string> allow;           // the profile's destinations, then [network] allow
  std::vector<std::string> deny;            // [network] deny
  std::vector<std::string> refuse;          // the host's connected subnets: no answer may resolve there
  std::vector<std::string> run_allow = {};  // of `allow`, what this run added (--allow), recorded
  // Test weakenings only: options the proxy gets on top of its rules, and a sandbox left in
  // the launcher's network namespace (allowlist-host-net).
  std::vector<std::string> proxy_test_args = {};
  bool own_namespace = true;
  // [sandbox] landlock ("auto", "required", "off"): the proxy's own Landlock domain follows it.
  std::string proxy_landlock = "auto";
};

// mode = "offline": bwrap's own network namespace, loopback only.
struct OfflineMode {
  bool own_namespace = true;  // false: test weakening offline-host-net
};

using NetworkPlan = std::variant<HostMode, JailMode, AllowlistMode, OfflineMode>;

// Whether the mode reads the host's network (the jail copies its routes and resolvers, the
// allowlist refuses its subnets): the facts are gathered only then.
bool needs_network_facts(const NetworkConfig& config);

// Pure. Throws cordon::Error (what + fix) when the jail cannot be planned on this host.
// `profile_allow`: the active profile's own destinations (AgentProfile::network_allow).
NetworkPlan plan_network(const NetworkConfig& config, const ConfigSource& source,
                         const std::vector<std::string>& profile_allow, const NetworkFacts& facts);

// What the mode adds to the sandbox.
struct NetworkSection {
  std::vector<std::string> namespace_args;  // after the session's own namespace flags
  EnvList env;                              // set over any host variable of the same name
  std::string resolv_conf;                  // the sandbox's /etc/resolv.conf ("" = the host's)
  NetworkIntent intent;                     // the session file's "network"
  bool command_gate = false;                // the command waits for the mode's launch stage
};

NetworkSection network_section(const NetworkPlan& plan);

// The status line's network summary, and the warning that goes on its first line ("" = none).
std::string describe_network(const NetworkIntent& intent);
std::string network_weaker_label(const NetworkIntent& intent);

// `cordon doctor`: the jail's host requirements are errors only when the jail is configured.
bool jail_required(const NetworkConfig& config);

// The mode's launch: its prerequisites, checked before anything is made (a missing one
// refuses the launch with its fix, never a fallback), then its launch stage.
class NetworkLaunch {
 public:
  // Throws cordon::Error naming what is missing and the fix.
  NetworkLaunch(const NetworkConfig& config, const std::string& config_path, const std::string& libexec_dir);
  ~NetworkLaunch();
  NetworkLaunch(const NetworkLaunch&) = delete;
  NetworkLaunch& operator=(const NetworkLaunch&) = delete;

  // The launch stage for `plan` (nullptr: host and offline need none); owned here.
  LaunchStage* stage_for(const NetworkPlan& plan, const std::string& session_id);
  // After the session: the proxy's decisions (allowlist), else nullopt.
  std::optional<proxy::EgressDecisions> decisions() const;

 private:
  std::string pasta_path_, proxy_path_;
  std::unique_ptr<jail::EgressJail> jail_;
  std::unique_ptr<proxy::AllowlistNetwork> allowlist_;
};

}  // namespace cordon::network
