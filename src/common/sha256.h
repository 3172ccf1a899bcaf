// SHA-256 (FIPS 180-4), for the manifest's configuration digest. No crypto library is a
// declared dependency, and a digest of a small file needs none.
#pragma once

#include <string>
#include <string_view>

namespace cordon {

// Lower-case hex digest of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace cordon
