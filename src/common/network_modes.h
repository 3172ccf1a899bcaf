// The session's network modes, once: their names in the configuration and in the session
// file, which is narrower than which (a per-run flag may only narrow), and where the allowlist
// mode's proxy listens inside the sandbox. The launcher, the battery and the probe read it.
#pragma once

#include <optional>
#include <string>

namespace cordon {

// From widest to narrowest; the numeric order is the narrowing order.
//   Host:       the host's own network (no confinement; egress_jail = false).
//   EgressJail: a private namespace behind pasta; private, CGNAT, link-local and the host's
//               subnets blackholed; the internet open.
//   Allowlist:  a private namespace with loopback only; HTTP(S) through cordon's proxy, which
//               admits the allow-listed destinations; no resolver.
//   Offline:    a private namespace with loopback only; nothing leaves.
enum class NetworkMode { Host = 0, EgressJail = 1, Allowlist = 2, Offline = 3 };

// "host", "jail", "allowlist", "offline": [network] mode and `--network`.
const char* network_mode_config_name(NetworkMode mode);
// "host", "egress-jail", "allowlist", "offline": the session file and the record.
const char* network_mode_name(NetworkMode mode);
std::optional<NetworkMode> network_mode_from_config_name(const std::string& name);
std::optional<NetworkMode> network_mode_from_name(const std::string& name);
// "host, jail, allowlist, offline": for messages.
std::string network_mode_config_names();

inline bool narrower_or_equal(NetworkMode candidate, NetworkMode than) {
  return static_cast<int>(candidate) >= static_cast<int>(than);
}

// The allowlist mode's proxy endpoint inside the sandbox's own network namespace: the
// launcher listens there (the socket lives in the sandbox's namespace, the proxy that accepts
// on it outside), and HTTP(S)_PROXY point at it.
inline constexpr const char* kProxyHost = "127.0.0.1";
inline constexpr int kProxyPort = 3128;
std::string proxy_url();  // "http://127.0.0.1:3128"

}  // namespace cordon
