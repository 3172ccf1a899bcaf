// Naming a terminal device the same way on both sides of the sandbox: the launcher records its
// own terminal in the session file, and battery check 28 compares the terminals it holds
// inside against it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace cordon {

// "136:4" for a device number.
std::string device_name(dev_t device);

// The device behind `fd` when it is a terminal (isatty and a character device); nullopt otherwise.
std::optional<dev_t> terminal_device(int fd);

// The real device of this process's controlling terminal (TIOCGDEV through /dev/tty, whose own
// node is 5:0), decoded from the kernel's encoding; nullopt when the process has none.
std::optional<dev_t> controlling_terminal_device();

}  // namespace cordon
