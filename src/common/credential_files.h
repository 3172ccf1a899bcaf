// Host files that hold credentials and are masked in every sandbox where they exist: the
// launcher binds an empty read-only file over each; battery check 26 verifies they read empty.
#pragma once

#include <string>
#include <vector>

namespace cordon {

inline const std::vector<std::string>& system_credential_files() {
  static const std::vector<std::string> files = {
      "/etc/shadow",          "/etc/gshadow",         "/etc/shadow-",  // the backups too
      "/etc/gshadow-",        "/etc/sudoers",         "/etc/security/opasswd",
      "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key",
      "/etc/ssh/ssh_host_dsa_key"};
  return files;
}

}  // namespace cordon
