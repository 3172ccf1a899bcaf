// The documents the helpers write with --json, by format name and major version
// (docs/schemas.md): the battery and the probe write them, and `cordon verify --json` reads
// them back to print one document of its own.
#pragma once

namespace cordon {

inline constexpr const char* kBatteryFormat = "cordon-battery";
inline constexpr int kBatteryVersion = 1;
// Version 2 moved the cordon build version from "version" to "cordon_version".
inline constexpr const char* kProbeFormat = "cordon-probe";
inline constexpr int kProbeVersion = 2;

}  // namespace cordon
