#include "core/fp8.hpp"

#include <cmath>
#include <limits>

namespace ptxb {

double e4m3_to_double(uint8_t code) {
  const bool negative = (code & 0x80) != 0;
  const int exponent = (code >> 3) & 0xF;
  const int mantissa = code & 0x7;
  if (exponent == 0xF && mantissa == 0x7) return std::numeric_limits<double>::quiet_NaN();
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, -9)  // subnormal: m/8 * 2^-6
                                         : std::ldexp(8 + mantissa, exponent - 10);
  return negative ? -magnitude : magnitude;
}

uint8_t e4m3_from_double(double value) {
  if (std::isnan(value)) return 0x7F;
  const uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
  const double magnitude = std::fabs(value);
  if (magnitude >= kE4M3Max) return sign | 0x7E;  // satfinite
  // The codes 0x00..0x7E are ordered by magnitude: take the nearest, ties to the even code.
  uint8_t low = 0;
  for (uint8_t c = 1; c <= 0x7E && e4m3_to_double(c) <= magnitude; ++c) low = c;
  if (low == 0x7E) return sign | low;
  const double below = e4m3_to_double(low), above = e4m3_to_double(static_cast<uint8_t>(low + 1));
  uint8_t nearest = low;
  if (magnitude - below > above - magnitude) nearest = static_cast<uint8_t>(low + 1);
  if (magnitude - below == above - magnitude && (low & 1) != 0)
    nearest = static_cast<uint8_t>(low + 1);
  return sign | nearest;
}

}  // namespace ptxb
