// Runs a program with stdout and stderr on a pipe that is already full, so the program
// blocks on its first write, and reads its credentials from /proc while it waits. This shows
// what an exec (setuid bit, file capabilities) granted, without the program doing anything
// but print a usage text. The program is killed afterwards (it is our own child).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace cordon::probe {

struct ExecInspection {
  bool inspected = false;
  std::string why;   // when !inspected
  std::string name;  // comm after exec
  uid_t euid = 0;
  uint64_t cap_eff = 0, cap_prm = 0;
};

// `drop_caps`: the child empties its permitted/effective/inheritable sets before exec, so a
// root caller can see whether exec gives them back.
ExecInspection exec_and_inspect(const std::string& path, bool drop_caps, int timeout_ms = 2000);

}  // namespace cordon::probe
