// The curated git configuration every sandbox gets instead of the host's.
#pragma once

#include <string>

#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"

namespace cordon {

// Identity: config [git] first, then the host's git identity, then user@cordon.invalid.
std::string render_gitconfig(const GitIdentityConfig& config, const HostFacts& facts);

}  // namespace cordon
