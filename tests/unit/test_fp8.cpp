// The E4M3 codec against the format's definition: every code's value, round trips, ties to even,
// saturation, NaN.
#include <gtest/gtest.h>

#include <cmath>

#include "core/fp8.hpp"

namespace ptxb {
namespace {

TEST(E4M3, KnownCodes) {
  EXPECT_EQ(e4m3_to_double(0x00), 0.0);
  EXPECT_EQ(e4m3_to_double(0x38), 1.0);                  // exponent 7 = bias
  EXPECT_EQ(e4m3_to_double(0x7E), 448.0);                // 1.75 * 2^8
  EXPECT_EQ(e4m3_to_double(0x01), std::ldexp(1.0, -9));  // the smallest subnormal
  EXPECT_EQ(e4m3_to_double(0x08), std::ldexp(1.0, -6));  // the smallest normal
  EXPECT_EQ(e4m3_to_double(0xB8), -1.0);
  EXPECT_TRUE(std::isnan(e4m3_to_double(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3_to_double(0xFF)));
}

TEST(E4M3, EveryFiniteCodeRoundTrips) {
  for (int c = 0; c < 256; ++c) {
    if ((c & 0x7F) == 0x7F) continue;
    const double v = e4m3_to_double(static_cast<uint8_t>(c));
    const uint8_t back = e4m3_from_double(v);
    if (c == 0x80) {  // -0 keeps its sign
      EXPECT_EQ(back, 0x80);
      continue;
    }
    EXPECT_EQ(back, c) << v;
  }
}

TEST(E4M3, RoundsToNearestTiesToEvenAndSaturates) {
  EXPECT_EQ(e4m3_from_double(1.0625), 0x38) << "halfway 1 and 1.125: to the even code (1.0)";
  EXPECT_EQ(e4m3_from_double(1.1875), 0x3A) << "halfway 1.125 and 1.25: to 1.25";
  EXPECT_EQ(e4m3_from_double(1.07), 0x39);
  EXPECT_EQ(e4m3_from_double(1000.0), 0x7E);
  EXPECT_EQ(e4m3_from_double(-1e30), 0xFE);
  EXPECT_EQ(e4m3_from_double(440.0), 0x7E) << "nearest of 416 and 448";
  EXPECT_EQ(e4m3_from_double(std::ldexp(1.0, -11)), 0x00) << "a quarter of the smallest subnormal";
  EXPECT_EQ(e4m3_from_double(std::nan("")), 0x7F);
}

}  // namespace
}  // namespace ptxb
