// Is /dev/net/tun the tun device pasta needs? One answer for the egress jail's prerequisites,
// which refuse the launch, and for `cordon doctor`, which predicts that refusal.
#pragma once

#include <string>

namespace cordon::jail {

inline constexpr const char* kTunDevicePath = "/dev/net/tun";

struct TunDeviceCheck {
  std::string problem;  // "" when the device is usable
  std::string fix;      // how to make it usable (without the jail's opt-out)
};

// Opens `path` read-write, as pasta does inside the holder's namespaces, and checks that it is
// the tun device (character device 10:200): anything else bound there (/dev/null, a file)
// opens fine and fails only later, inside pasta.
TunDeviceCheck check_tun_device(const std::string& path = kTunDevicePath);

}  // namespace cordon::jail
