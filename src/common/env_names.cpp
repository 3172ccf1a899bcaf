#include "common/env_names.h"

#include <algorithm>

namespace cordon {

const std::vector<std::string>& base_env_allow_list() {
  static const std::vector<std::string> names = {"PATH", "HOME", "TERM",    "LANG",     "LC_*",
                                                 "TZ",   "USER", "LOGNAME", "COLORTERM"};
  return names;
}

bool env_name_matches(std::string_view pattern, std::string_view name) {
  if (!pattern.empty() && pattern.back() == '*')
    return name.substr(0, pattern.size() - 1) == pattern.substr(0, pattern.size() - 1);
  return pattern == name;
}

bool env_name_in(const std::vector<std::string>& patterns, std::string_view name) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return env_name_matches(p, name); });
}

bool credential_env_name(std::string_view name) {
  // The union of what the battery and the probe each used to flag; substrings cover the
  // suffix forms (_TOKEN, _API_KEY, _SECRET_KEY, _CREDENTIALS, ...).
  static constexpr std::string_view kContains[] = {"TOKEN",       "SECRET",    "PASSWORD",   "PASSWD",
                                                   "CREDENTIAL",  "API_KEY",   "APIKEY",     "ACCESS_KEY",
                                                   "PRIVATE_KEY", "AUTH_SOCK", "SESSION_KEY"};
  static constexpr std::string_view kPrefixes[] = {"AWS_",   "GH_",     "GITHUB_", "GITLAB_", "OPENAI_", "ANTHROPIC_",
                                                   "AZURE_", "GOOGLE_", "VAULT_",  "DOCKER_", "NPM_",    "VSCODE_"};
  static constexpr std::string_view kExact[] = {"DISPLAY",    "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS",
                                                "XAUTHORITY", "SSH_AGENT_PID",   "GPG_AGENT_INFO",
                                                "KUBECONFIG", "GIT_ASKPASS",     "SSH_ASKPASS"};
  for (auto c : kContains)
    if (name.find(c) != std::string_view::npos) return true;
  for (auto p : kPrefixes)
    if (name.substr(0, p.size()) == p) return true;
  return std::find(std::begin(kExact), std::end(kExact), name) != std::end(kExact);
}

bool configuration_env_name(std::string_view name) {
  static const std::vector<std::string> exact = {"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE",       "SSL_CERT_DIR",
                                                 "REQUESTS_CA_BUNDLE",  "CURL_CA_BUNDLE",      "PIP_INDEX_URL",
                                                 "PIP_EXTRA_INDEX_URL", "NPM_CONFIG_REGISTRY", "GOOGLE_CLOUD_PROJECT"};
  static const std::vector<std::string> prefixes = {"ANTHROPIC_", "CLAUDE_",       "OPENAI_",      "CODEX_",
                                                    "GEMINI_",    "GOOGLE_GENAI_", "GOOGLE_CLOUD_"};
  auto ends_with = [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  if (ends_with("_PROXY") || ends_with("_proxy")) return true;
  for (const auto& e : exact)
    if (name == e) return true;
  for (const auto& p : prefixes)
    if (name.substr(0, p.size()) == p) return true;
  return false;
}

}  // namespace cordon
