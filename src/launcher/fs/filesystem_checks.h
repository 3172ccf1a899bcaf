// The filesystem's refusals: what the configuration and the profile would bind read-write or
// mask, checked against the host before anything is planned. A writable path, a home entry or
// a cache that is (or resolves to) a path the sandbox may not write, a control entry that
// cannot be bound read-only, a mask the sandbox could undo, a missing read path, mask file or
// agent binary: each refuses the launch with the fix.
#pragma once

#include <string>
#include <vector>

#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/section/dangerous_paths.h"

namespace cordon {

// Throws cordon::Error (what + fix); a ConfigError naming where `source` says the file set the
// value, when a value of [filesystem], [home] caches or the profile's binary is the cause.
// `protected_list`: section/dangerous_paths.h.
void refuse_unsafe_filesystem(const FilesystemConfig& config, const HomeConfig& home, const ConfigSource& source,
                              const AgentProfile& profile, const HostFacts& facts,
                              const std::vector<ProtectedPath>& protected_list);

}  // namespace cordon
