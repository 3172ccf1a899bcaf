// --selftest: pure checks of the verdict rules (see selftest.cpp).
#pragma once

namespace cordon::probe {

// Returns 0 when every expectation holds, kExitSelftestFailed otherwise.
int run_selftest();

}  // namespace cordon::probe
