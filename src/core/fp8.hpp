// The OCP 8-bit float E4M3 (the e4m3 of PTX, cuBLASLt's CUDA_R_8F_E4M3): 1 sign, 4 exponent
// (bias 7), 3 mantissa bits; no infinities, 0x7F/0xFF are NaN, the largest finite value is 448,
// subnormals down to 2^-9. Exact host conversions for references and tests.
#pragma once

#include <cstdint>

namespace ptxb {

inline constexpr double kE4M3Max = 448.0;

/// The value of an E4M3 code (NaN for 0x7F and 0xFF).
double e4m3_to_double(uint8_t code);

/// The E4M3 code nearest to `value`, ties to even; beyond +-448 saturates to +-448 (the
/// "satfinite" conversion PTX and cuBLASLt use); NaN gives 0x7F.
uint8_t e4m3_from_double(double value);

}  // namespace ptxb
