// SHA-1 (FIPS 180-4), for git object ids only: a review patch names each side of a binary
// change by its full blob id, which git checks before and after applying. SHA-1 is broken
// for collision resistance; nothing in cordon may use it to decide what to trust (use
// sha256.h for that).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cordon {

// An incremental SHA-1: update() with the pieces in order, then hex_digest() once.
class Sha1 {
 public:
  Sha1();
  void update(std::string_view data);
  // Lower-case hex of the 20-byte digest. Finishes the hash: call it once.
  std::string hex_digest();

 private:
  void compress(const unsigned char* block);

  std::array<uint32_t, 5> state_;
  std::array<unsigned char, 64> pending_{};  // the bytes of an unfinished block
  size_t pending_size_ = 0;
  uint64_t total_size_ = 0;
};

// Lower-case hex SHA-1 of `data`.
std::string sha1_hex(std::string_view data);

}  // namespace cordon
