#include "common/network_opt_out.h"

#include "common/build_config.h"

namespace cordon {

std::string egress_jail_opt_out(const std::string& config_path) {
  return "set [network] mode = \"offline\" (no network at all; needs no pasta) or mode = \"host\" (no "
         "confinement) in " +
         (config_path.empty() ? std::string(build::kConfigPath) : config_path);
}

}  // namespace cordon
