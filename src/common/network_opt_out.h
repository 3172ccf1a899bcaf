// The advice every egress-jail refusal ends with: how to run without the jail.
// One spelling, naming the configuration file the launcher actually reads (a build setting).
#pragma once

#include <string>

namespace cordon {

// "set [network] mode = "offline" (...) or mode = "host" (...) in PATH": the mode that needs
// no pasta at all, and the one without confinement; PATH is `config_path`, or
// build::kConfigPath when that is empty.
std::string egress_jail_opt_out(const std::string& config_path = {});

}  // namespace cordon
