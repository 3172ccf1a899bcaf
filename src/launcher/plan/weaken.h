// Test-only: deliberately weakened sandboxes, so tests can prove each battery check and probe
// can FAIL. Compiled only with -DCORDON_TEST_HOOKS=ON; release builds have no such switch.
#pragma once

#include <string>
#include <vector>

#include "launcher/plan/plan.h"

namespace cordon {

// Names accepted by weaken_sections (for --help and error messages).
std::vector<std::string> weakening_names();

// Removes or alters one defence in a mechanism's section, before assembly: bwrap's argv is
// never edited. The session file still states the sections as planned, which is what lets
// the battery notice the difference. Throws cordon::Error for an unknown name.
void weaken_sections(SandboxSections& sections, const std::string& name);

}  // namespace cordon
