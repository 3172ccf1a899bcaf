// Test-only: deliberately weakened sandboxes, so tests can prove each battery check and probe
// can FAIL. Compiled only with -DCORDON_TEST_HOOKS=ON; release builds have no such switch.
#pragma once

#include <string>
#include <vector>

#include "launcher/plan/plan.h"

namespace cordon {

// Names accepted by apply_weakening (for --help and error messages).
std::vector<std::string> weakening_names();

// Removes or alters one defence in a mechanism's section, before assembly (does nothing for a
// name that acts on the assembled plan).
void weaken_sections(SandboxSections& sections, const std::string& name);

// Removes or alters one defence in an already built plan (does nothing for a name that acts on
// the sections). The session file still describes
// the intended sandbox, which is what lets the battery notice the difference.
// Throws cordon::Error for an unknown name.
void apply_weakening(SandboxPlan& plan, const std::string& name);

}  // namespace cordon
