// The curated git configuration every sandbox gets instead of the host's.
#pragma once

#include <string>

#include "launcher/config.h"
#include "launcher/host_facts.h"

namespace cordon {

// Identity: config [git] first, then the host's git identity, then user@cordon.invalid.
std::string render_gitconfig(const Config& config, const HostFacts& facts);

}  // namespace cordon
