// [home] caches: directories such as ~/.npm or ~/.cache/pip kept across sessions in cordon's
// own store, STATE/caches/PROFILE/ENTRY (STATE: the directory holding the session records),
// bound read-write over the fresh home. The host's own caches are never used: a host tool would
// run what a session left there. One store per profile, so a claude session and a codex
// session do not share what they cache.
#pragma once

#include <string>

#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"

namespace cordon {

// The store of `profile`'s caches for this user: STATE/caches/PROFILE.
std::string cache_store(const HostFacts& facts, const std::string& profile);

// Makes each missing cache directory (0700, owned by the store's owner; no link followed),
// and records where each is in facts.cache_sources. One that cannot be made is named on stderr
// and not bound (a cache is never needed for correctness).
void make_home_caches(const HomeConfig& config, const std::string& profile, HostFacts& facts);

}  // namespace cordon
