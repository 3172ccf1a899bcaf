// Sealed, read-only in-memory files: how generated content (seccomp BPF, git config,
// session file) reaches bwrap without touching the host filesystem.
#pragma once

#include <string>
#include <string_view>

#include "common/unique_fd.h"

namespace cordon {

// Creates a CLOEXEC memfd named `name`; throws cordon::Error on failure.
UniqueFd create_memfd(const std::string& name);

// Seals `fd` against writes, growth and shrinking and rewinds it to offset 0.
void seal_and_rewind(int fd, const std::string& name);

// create_memfd + write all of `content` + seal_and_rewind.
UniqueFd sealed_memfd_with(const std::string& name, std::string_view content);

}  // namespace cordon
