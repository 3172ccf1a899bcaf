// Files that hold credentials, once for the launcher that masks them and the witnesses that
// look for them: the launcher binds an empty read-only file over each; battery checks 14, 15
// and 26 verify they read empty; the probe tries to read them.
#pragma once

#include <string>
#include <vector>

namespace cordon {

inline const std::vector<std::string>& system_credential_files() {
  static const std::vector<std::string> files = {"/etc/shadow",
                                                 "/etc/gshadow",
                                                 "/etc/shadow-",  // the backups too
                                                 "/etc/gshadow-",
                                                 "/etc/sudoers",
                                                 "/etc/security/opasswd",
                                                 "/etc/ssh/ssh_host_rsa_key",
                                                 "/etc/ssh/ssh_host_ecdsa_key",
                                                 "/etc/ssh/ssh_host_ed25519_key",
                                                 "/etc/ssh/ssh_host_dsa_key"};
  return files;
}

// Masked inside the sandbox's fresh home (relative to $HOME) even though the home starts
// empty: tools recreate them, and an agent's X or ICE cookie would reach the host's display.
inline const std::vector<std::string>& home_masked_files() {
  static const std::vector<std::string> files = {".netrc", ".Xauthority", ".ICEauthority"};
  return files;
}

// The host user's credential stores (relative to $HOME): never present in a sandbox's home
// unless the configuration keeps them (home.keep).
inline const std::vector<std::string>& home_credential_stores() {
  static const std::vector<std::string> entries = {".ssh",
                                                   ".gnupg",
                                                   ".aws",
                                                   ".azure",
                                                   ".kube",
                                                   ".docker",
                                                   ".git-credentials",
                                                   ".pgpass",
                                                   ".npmrc",
                                                   ".pypirc",
                                                   ".config/gh",
                                                   ".config/gcloud",
                                                   ".config/glab-cli",
                                                   ".local/share/keyrings",
                                                   ".password-store"};
  return entries;
}

}  // namespace cordon
