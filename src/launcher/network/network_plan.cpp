#include "launcher/network/network_plan.h"

#include "common/network_modes.h"
#include "launcher/network/allowlist_network.h"
#include "launcher/network/egress_jail.h"

namespace cordon::network {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

// Loopback-only modes name a resolver that is not there (127.0.0.1:53 answers "connection
// refused" at once): no query leaves, and the host's resolver address is not shown.
constexpr const char* kOfflineResolvConf =
    "# written by cordon: network.mode = \"offline\": no resolver\nnameserver 127.0.0.1\n";

std::string allowlist_resolv_conf() {
  return "# written by cordon: network.mode = \"allowlist\": no resolver; the proxy (" + proxy_url() +
         ") resolves the names it admits\nnameserver 127.0.0.1\n";
}

// The proxy is the only way out, so every client is pointed at it (curl reads the lower-case
// http_proxy only; Node's fetch needs NODE_USE_ENV_PROXY), and a host proxy variable of the
// same name never reaches the sandbox.
EnvList proxy_environment() {
  EnvList env;
  for (const char* name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"})
    env.emplace_back(name, proxy_url());
  env.emplace_back("NO_PROXY", "localhost,127.0.0.1,::1");
  env.emplace_back("no_proxy", "localhost,127.0.0.1,::1");
  env.emplace_back("NODE_USE_ENV_PROXY", "1");
  return env;
}

NetworkSection jail_section(const jail::JailPlan& jail) {
  NetworkSection s;
  s.resolv_conf = jail.resolv_conf;
  s.intent.mode = NetworkMode::EgressJail;
  for (const auto& p : jail.blackholes) s.intent.blackholes.push_back(p.str());
  for (const auto& p : jail.unreachable) s.intent.unreachable.push_back(p.str());
  for (const auto& p : jail.allow) s.intent.allow.push_back(p.str());
  s.intent.gateway = jail.gateway;
  s.intent.dns_forward = jail.dns_forward;
  s.command_gate = true;  // the routes are programmed while bwrap sets up
  return s;
}

NetworkSection allowlist_section(const AllowlistMode& mode) {
  NetworkSection s;
  // Without a namespace of its own (a test weakening) the sandbox keeps the host's resolver.
  if (mode.own_namespace) s.resolv_conf = allowlist_resolv_conf();
  s.env = proxy_environment();
  s.intent.mode = NetworkMode::Allowlist;
  s.intent.proxy = std::string(kProxyHost) + ":" + std::to_string(kProxyPort);
  s.intent.proxy_allow = mode.allow;
  s.intent.proxy_deny = mode.deny;
  s.intent.proxy_run_allow = mode.run_allow;
  s.command_gate = true;  // the proxy is started after the fork
  return s;
}

NetworkSection offline_section(const OfflineMode& mode) {
  NetworkSection s;
  s.intent.mode = NetworkMode::Offline;
  if (!mode.own_namespace) return s;  // test weakening offline-host-net
  // bwrap's own network namespace, in which it brings up loopback and nothing else. (The
  // allowlist and the jail get theirs from the launcher's holder, which bwrap keeps.)
  s.namespace_args = {"--unshare-net"};
  s.resolv_conf = kOfflineResolvConf;
  return s;
}

}  // namespace

bool needs_network_facts(const NetworkConfig& config) {
  return config.mode == NetworkMode::EgressJail || config.mode == NetworkMode::Allowlist;
}

NetworkPlan plan_network(const NetworkConfig& config, const ConfigSource& source,
                         const std::vector<std::string>& profile_allow, const NetworkFacts& facts) {
  switch (config.mode) {
    case NetworkMode::EgressJail: return JailMode{jail::plan_jail(config, source, facts)};
    case NetworkMode::Allowlist: {
      AllowlistMode mode{profile_allow, config.deny, {}};
      mode.allow.insert(mode.allow.end(), config.allow.begin(), config.allow.end());
      mode.run_allow = config.run_allow;
      for (const auto& subnet : facts.connected) mode.refuse.push_back(subnet.str());
      // The host's own addresses: a name may not resolve onto a service of the host itself.
      for (const auto& address : facts.host_addresses) mode.refuse.push_back(address.str());
      return mode;
    }
    case NetworkMode::Offline: return OfflineMode{};
    case NetworkMode::Host: break;
  }
  return HostMode{};
}

NetworkSection network_section(const NetworkPlan& plan) {
  return std::visit(Overloaded{[](const HostMode&) { return NetworkSection{}; },
                               [](const JailMode& m) { return jail_section(m.jail); },
                               [](const AllowlistMode& m) { return allowlist_section(m); },
                               [](const OfflineMode& m) { return offline_section(m); }},
                    plan);
}

std::string describe_network(const NetworkIntent& n) {
  switch (n.mode) {
    case NetworkMode::Offline: return "offline: loopback only, no resolver; nothing leaves";
    case NetworkMode::Allowlist: {
      std::string rules;
      for (const auto& r : n.proxy_allow) rules += (rules.empty() ? "" : ", ") + r;
      std::string out = "allowlist: loopback only, no resolver; HTTP(S) through cordon's proxy at " + n.proxy + " to " +
                        (rules.empty() ? std::string("nothing (no allow rules)") : rules);
      if (!n.proxy_deny.empty()) out += "; denied: " + std::to_string(n.proxy_deny.size()) + " rule(s)";
      return out;
    }
    case NetworkMode::EgressJail: {
      // The DNS forwarder's own /32 is punched through like an allow entry; it is named apart.
      size_t allowed = 0;
      for (const auto& a : n.allow) allowed += a != n.dns_forward + "/32" && a != n.dns_forward;
      return "egress jail: " + std::to_string(n.blackholes.size()) +
             " private/connected ranges blackholed, link-local unreachable, " +
             (allowed == 0 ? std::string("no range allowed through")
                           : std::to_string(allowed) + " range(s) allowed through") +
             ", DNS via " + n.dns_forward;
    }
    case NetworkMode::Host: break;
  }
  return "NOT CONFINED: host network (egress jail disabled)";
}

std::string network_weaker_label(const NetworkIntent& n) {
  return n.mode == NetworkMode::Host ? "NETWORK NOT CONFINED: egress jail disabled" : "";
}

bool jail_required(const NetworkConfig& config) { return config.mode == NetworkMode::EgressJail; }

NetworkLaunch::NetworkLaunch(const NetworkConfig& config, const std::string& config_path,
                             const std::string& libexec_dir) {
  if (config.mode == NetworkMode::EgressJail) pasta_path_ = jail::check_jail_prerequisites(config_path);
  if (config.mode == NetworkMode::Allowlist)
    proxy_path_ = proxy::check_allowlist_prerequisites(libexec_dir, config_path);
}

NetworkLaunch::~NetworkLaunch() = default;

LaunchStage* NetworkLaunch::stage_for(const NetworkPlan& plan, const std::string& session_id) {
  if (const auto* jailed = std::get_if<JailMode>(&plan)) {
    jail_ = std::make_unique<jail::EgressJail>(jailed->jail, pasta_path_, session_id);
    return jail_.get();
  }
  if (const auto* allowlist = std::get_if<AllowlistMode>(&plan)) {
    proxy::ProxyArgs args{allowlist->allow, allowlist->deny, allowlist->refuse, allowlist->proxy_test_args,
                          allowlist->proxy_landlock};
    allowlist_ = std::make_unique<proxy::AllowlistNetwork>(proxy_path_, std::move(args), allowlist->own_namespace);
    return allowlist_.get();
  }
  return nullptr;
}

std::optional<proxy::EgressDecisions> NetworkLaunch::decisions() const {
  if (!allowlist_) return std::nullopt;
  return proxy::parse_decisions(allowlist_->decisions());
}

}  // namespace cordon::network
