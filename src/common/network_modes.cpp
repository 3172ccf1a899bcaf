#include "common/network_modes.h"

#include <array>

namespace cordon {
namespace {

struct ModeNames {
  NetworkMode mode;
  const char* config;
  const char* recorded;
};

constexpr std::array<ModeNames, 4> kModes = {{{NetworkMode::Host, "host", "host"},
                                              {NetworkMode::EgressJail, "jail", "egress-jail"},
                                              {NetworkMode::Allowlist, "allowlist", "allowlist"},
                                              {NetworkMode::Offline, "offline", "offline"}}};

}  // namespace

const char* network_mode_config_name(NetworkMode mode) {
  for (const auto& m : kModes)
    if (m.mode == mode) return m.config;
  return "host";
}

const char* network_mode_name(NetworkMode mode) {
  for (const auto& m : kModes)
    if (m.mode == mode) return m.recorded;
  return "host";
}

std::optional<NetworkMode> network_mode_from_config_name(const std::string& name) {
  for (const auto& m : kModes)
    if (name == m.config) return m.mode;
  return std::nullopt;
}

std::optional<NetworkMode> network_mode_from_name(const std::string& name) {
  for (const auto& m : kModes)
    if (name == m.recorded) return m.mode;
  return std::nullopt;
}

std::string network_mode_config_names() {
  std::string out;
  for (const auto& m : kModes) out += (out.empty() ? "" : ", ") + std::string(m.config);
  return out;
}

std::string proxy_url() { return "http://" + std::string(kProxyHost) + ":" + std::to_string(kProxyPort); }

}  // namespace cordon
