// The one thing the launcher writes in the user's home: the active agent profile's entries
// that do not exist yet, so that a fresh machine's first session leaves its login, onboarding
// and folder trust behind for the second (they are bound read-write into the sandbox's home,
// which is otherwise a tmpfs that vanishes with the session).
#pragma once

#include <string>
#include <vector>

#include "launcher/inputs/host_facts.h"

namespace cordon {

struct CreatedHomeEntries {
  std::vector<std::string> created;   // entries made, relative to the home
  std::vector<std::string> problems;  // entries that could not be made (they are skipped, as before)
};

// Makes each missing entry of `entries` (relative to `home`): a name with an extension (its
// leading dot aside: "settings.json", ".claude.json", "config.toml"; and ".env") a file 0600, holding "{}"
// for ".json" (an empty state every shipped agent accepts) and nothing otherwise; any other
// name ("commands", ".codex") a directory 0700;
// missing parents are directories 0700. Owned by the home's owner. Nothing is followed: each
// component is opened below the home's descriptor with O_NOFOLLOW, so a symlink planted in
// the home cannot send the launcher elsewhere; an entry that exists in any form is left as it is.
// EntryShape::Directory makes every entry a directory, whatever its name (a cache "foo.d").
enum class EntryShape { ByName, Directory };
CreatedHomeEntries create_missing_home_entries(const std::string& home, const std::vector<std::string>& entries,
                                               EntryShape shape = EntryShape::ByName);

// The same for the launch's facts, for the profile's state entries and then its control
// entries (so that a control file the sandbox could otherwise create in a state directory
// exists, and is bound read-only): the entries made are then known to exist (and bound).
void create_missing_profile_entries(const AgentProfile& profile, HostFacts& facts);

}  // namespace cordon
