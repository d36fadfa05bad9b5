// HMAC-SHA256 against RFC 4231's test vectors, and the helpers around it.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sys/hmac.hpp"

namespace ptxb {
namespace {

TEST(Hmac, Rfc4231Vectors) {
  EXPECT_EQ(hmac_sha256_hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // A key longer than the block is hashed first (test case 6).
  EXPECT_EQ(hmac_sha256_hex(std::string(131, '\xaa'),
                            "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(Hmac, RandomKeysDifferAndDecode) {
  const std::string a = random_hex(32), b = random_hex(32);
  EXPECT_EQ(a.size(), 64u);
  EXPECT_NE(a, b);
  EXPECT_EQ(hex_to_bytes(a).size(), 32u);
  EXPECT_THROW(hex_to_bytes("abc"), InputError);
  EXPECT_THROW(hex_to_bytes("zz"), InputError);
}

}  // namespace
}  // namespace ptxb
