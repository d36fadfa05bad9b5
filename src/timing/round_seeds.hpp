// The input seeds of timing round r (docs/timing.md, "No resident answer"): the candidate and the
// library draw from different seed sequences, so that while candidate code runs nothing in the
// process holds an output computed from the candidate's current inputs.
#pragma once

#include <cstdint>

namespace ptxb {

struct RoundSeeds {
  uint64_t candidate;
  uint64_t baseline;
};

/// Seeds of input set `set` (0-based, below 4096) in cold round `round` (0-based, -1 for the first
/// draw, below 2^20 - 1). Distinct between the two sides, and across rounds and sets.
constexpr RoundSeeds round_seeds(int round, int set = 0) {
  const auto k = (static_cast<uint64_t>(round + 1) << 12) | static_cast<uint64_t>(set);
  return {0x7157'0000'0000ull + k, 0xBA5E'0000'0000ull + k};
}

/// Seeds of call `call` (0-based) of sustained round `round` (-1 for the warm-up batch): distinct
/// across calls, rounds and sides, and from every cold round's.
constexpr RoundSeeds sustained_seeds(int round, int call) {
  const auto k = (static_cast<uint64_t>(round + 1) << 20) | static_cast<uint64_t>(call);
  return {0x5057'0000'0000'0000ull + k, 0x5BA5'0000'0000'0000ull + k};
}

}  // namespace ptxb
