#include "common/sha1.h"

#include <gtest/gtest.h>

#include <string>

namespace cordon {
namespace {

// FIPS 180-4 / RFC 3174 vectors, including both padding boundaries.
TEST(Sha1, KnownVectors) {
  EXPECT_EQ(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(sha1_hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(sha1_hex(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

// 55, 56 and 64 bytes: the length fits in the last block, just does not, and a full block.
TEST(Sha1, PaddingBoundaries) {
  EXPECT_EQ(sha1_hex(std::string(55, 'a')), "c1c8bbdc22796e28c0e15163d20899b65621d65a");
  EXPECT_EQ(sha1_hex(std::string(56, 'a')), "c2db330f6083854c99d4b5bfb6e8f29f201be699");
  EXPECT_EQ(sha1_hex(std::string(64, 'a')), "0098ba824b5c16427bd7a1122a5a442a25ec644d");
}

// Fed in uneven pieces, the digest is the one of the whole.
TEST(Sha1, IncrementalEqualsWhole) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data += static_cast<char>(i * 7);
  for (size_t piece : {1, 3, 63, 64, 65, 200}) {
    Sha1 hash;
    for (size_t at = 0; at < data.size(); at += piece) hash.update(std::string_view(data).substr(at, piece));
    EXPECT_EQ(hash.hex_digest(), sha1_hex(data)) << piece;
  }
}

// What `git hash-object` prints for a blob holding "hello\n": "blob 6\0hello\n".
TEST(Sha1, GitBlobId) {
  EXPECT_EQ(sha1_hex(std::string("blob 6\0hello\n", 13)), "ce013625030ba8dba906f756967f9e9ca394464a");
}

}  // namespace
}  // namespace cordon
