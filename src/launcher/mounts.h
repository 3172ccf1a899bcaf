// The filesystem half of the sandbox plan: which bwrap mount arguments, in which order.
// Pure: decisions come from Config + HostFacts only.
#pragma once

#include <string>
#include <vector>

#include "launcher/config.h"
#include "launcher/host_facts.h"

namespace cordon {

// Host files that always get a /dev/null mask when present (credential stores of the system).
const std::vector<std::string>& system_mask_files();

// Files in the inverted home that always get a /dev/null mask (created on the tmpfs).
const std::vector<std::string>& home_mask_entries();

struct MountPlan {
  std::vector<std::string> args;       // bwrap arguments, in order
  std::vector<std::string> writable;   // host paths bound read-write
};

// `data_args` are inserted into the private /run/cordon tmpfs before it is remounted
// read-only (e.g. "--ro-bind-data", "11", "/run/cordon/gitconfig").
MountPlan plan_mounts(const Config& config, const AgentProfile& profile, const HostFacts& facts,
                      const std::vector<std::string>& data_args);

}  // namespace cordon
