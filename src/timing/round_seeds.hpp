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

/// Seeds of round `round` (0-based). Distinct between the two sides, and from every other round's.
constexpr RoundSeeds round_seeds(int round) {
  const auto r = static_cast<uint64_t>(round);
  return {0x7157'0000'0000ull + r, 0xBA5E'0000'0000ull + r};
}

/// Seeds of call `call` (0-based) of sustained round `round` (-1 for the warm-up batch): distinct
/// across calls, rounds and sides, and from every cold round's.
constexpr RoundSeeds sustained_seeds(int round, int call) {
  const auto k = (static_cast<uint64_t>(round + 1) << 20) | static_cast<uint64_t>(call);
  return {0x5057'0000'0000'0000ull + k, 0x5BA5'0000'0000'0000ull + k};
}

/// The seed of the baseline's first draw (the candidate's is the task's first seed).
constexpr uint64_t kBaselineFirstSeed = 0xBA5E'FFFF'FFFFull;

}  // namespace ptxb
