// Environment variable names: the ones every sandbox may receive, and the rule that says a
// name carries a credential. The launcher passes the base names through; battery check 21
// and probe 90 judge the environment they find with the same credential rule.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cordon {

// Host variables always passed into the sandbox (a trailing '*' is a prefix pattern).
const std::vector<std::string>& base_env_allow_list();

// Variables the launcher sets itself in every sandbox (a host variable of the same name never
// overrides them); the values come from the plan.
inline constexpr const char* kLauncherSetEnv[] = {"HOME", "IS_SANDBOX", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"};

// True when `name` matches `pattern` (exact, or prefix when the pattern ends in '*').
bool env_name_matches(std::string_view pattern, std::string_view name);
bool env_name_in(const std::vector<std::string>& patterns, std::string_view name);

// True for a name that carries a credential or a way to reach one (an agent socket, a display,
// a session bus): well-known names, vendor prefixes, and words such as TOKEN anywhere in it.
bool credential_env_name(std::string_view name);

// True for a name that configures a proxy, a CA bundle or a coding agent (HTTPS_PROXY,
// NODE_EXTRA_CA_CERTS, ANTHROPIC_BASE_URL, ...): when such a host variable is not passed in,
// the launcher names it (never its value) so a setup that needs it is not broken silently.
bool configuration_env_name(std::string_view name);

}  // namespace cordon
