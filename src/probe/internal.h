// Pure rules exposed for --selftest (probe/selftest.cpp); each lives with its probe family.
#pragma once

#include <string>

#include "probe/probe.h"

namespace cordon::probe {

// probes_kernel.cpp: verdict of a call given arguments the kernel refuses only after its
// permission check; `gate_errno` is the errno that proves the check was passed.
Verdict classify_gated(long result, int err, int gate_errno, std::string* text);

}  // namespace cordon::probe
