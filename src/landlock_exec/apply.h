// The Landlock step's work: the rules file the launcher planned (launcher/landlock/
// ruleset_plan.h), made into a ruleset and enforced on this process, which then execs the
// command (main.cpp): every process of the session inherits the ruleset and none can drop it.
#pragma once

#include <string>

namespace cordon::landlock {

// Reads the rules at `rules_path`, builds the ruleset and restricts this process. "" when the
// ruleset is in force; else what failed (nothing is enforced then, and the caller must not run
// the command).
std::string enforce_rules_file(const std::string& rules_path);

}  // namespace cordon::landlock
