// Where cordon's own files are: fixed at build time or derived from the running binary,
// never from the environment or the workspace.
#pragma once

#include <string>

namespace cordon {

// The directory of the running cordon binary (via /proc/self/exe), resolved.
std::string launcher_dir();

// libexec/cordon next to the running binary, resolved; `bin_dir` is launcher_dir() when given.
std::string libexec_dir(const std::string& bin_dir = launcher_dir());

// share/doc/cordon next to the running binary (README.md and docs/, installed), resolved; ""
// when there is none (a build tree).
std::string doc_dir(const std::string& bin_dir = launcher_dir());

// The fixed system locations find_system_binary searches, in order: an attacker-influenced
// $PATH must not choose the sandbox runtime.
inline constexpr const char* kSystemBinaryDirs[] = {"/usr/bin", "/usr/local/bin", "/bin", "/usr/sbin", "/sbin"};

// kSystemBinaryDirs as one phrase for a message: "/usr/bin, /usr/local/bin, ...".
std::string system_binary_dirs_text();

// First existing executable among kSystemBinaryDirs (no $PATH lookup), or "".
std::string find_system_binary(const std::string& name);

// realpath(3) or "" when the path does not resolve.
std::string real_path(const std::string& path);

}  // namespace cordon
