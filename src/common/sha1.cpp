#include "common/sha1.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace cordon {
namespace {

uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

}  // namespace

Sha1::Sha1() : state_{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0} {}

void Sha1::compress(const unsigned char* block) {
  uint32_t w[80];
  for (size_t i = 0; i < 16; ++i)
    w[i] = uint32_t{block[4 * i]} << 24 | uint32_t{block[4 * i + 1]} << 16 | uint32_t{block[4 * i + 2]} << 8 |
           uint32_t{block[4 * i + 3]};
  for (size_t i = 16; i < 80; ++i) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3], e = state_[4];
  for (size_t i = 0; i < 80; ++i) {
    uint32_t f, k;
    if (i < 20) f = (b & c) | (~b & d), k = 0x5a827999;
    else if (i < 40) f = b ^ c ^ d, k = 0x6ed9eba1;
    else if (i < 60) f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
    else f = b ^ c ^ d, k = 0xca62c1d6;
    const uint32_t next = rotl(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = rotl(b, 30);
    b = a;
    a = next;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
}

void Sha1::update(std::string_view data) {
  total_size_ += data.size();
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  size_t left = data.size();
  if (pending_size_ > 0) {
    const size_t take = std::min(left, pending_.size() - pending_size_);
    std::memcpy(pending_.data() + pending_size_, bytes, take);
    pending_size_ += take;
    bytes += take;
    left -= take;
    if (pending_size_ < pending_.size()) return;
    compress(pending_.data());
    pending_size_ = 0;
  }
  for (; left >= 64; bytes += 64, left -= 64) compress(bytes);
  std::memcpy(pending_.data(), bytes, left);
  pending_size_ = left;
}

std::string Sha1::hex_digest() {
  // Padding: 0x80, zeros to 56 mod 64, then the message length in bits, big-endian.
  const uint64_t bits = total_size_ * 8;
  unsigned char tail[72] = {0x80};
  const size_t zeros = (pending_size_ < 56 ? 56 : 120) - pending_size_;
  for (int i = 0; i < 8; ++i) tail[zeros + i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
  update(std::string_view(reinterpret_cast<const char*>(tail), zeros + 8));
  std::string hex;
  hex.reserve(40);
  for (uint32_t word : state_) {
    char part[9];
    std::snprintf(part, sizeof part, "%08x", word);
    hex += part;
  }
  return hex;
}

std::string sha1_hex(std::string_view data) {
  Sha1 hash;
  hash.update(data);
  return hash.hex_digest();
}

}  // namespace cordon
