// The two forms of a warp-specialized ring's position (kernels/gemm/sm90_ring_position.cuh),
// checked on the host: for rings of 1 to 9 stages, RingCount and RingPosition give the same
// stage, phase and previous stage after every advance, the stage cycles 0..kDepth-1 and the phase
// flips exactly when it wraps to 0. Compiled to PTX only (no GPU, no ptxas) by the CTest
// `ring_position`; exit 0 when it holds, else the first broken property is printed.
#include <cstdint>
#include <cstdio>

#include "gemm/sm90_ring_position.cuh"

namespace {

constexpr int kSteps = 10000;  // past 2^13 k-blocks of one CTA, many times around every ring

// The first broken property for rings of kDepth stages, or nullptr.
template <uint32_t kDepth>
const char* check() {
  RingCount<kDepth> count;
  RingPosition<kDepth> position;
  if (count.stage() != 0 || count.phase() != 0 || position.stage() != 0 || position.phase() != 0)
    return "a fresh ring does not start at stage 0, phase 0";
  for (int step = 1; step <= kSteps; ++step) {
    const uint32_t stage = position.stage(), phase = position.phase();
    count.advance();
    position.advance();
    if (count.stage() != position.stage() || count.phase() != position.phase() ||
        count.previous_stage() != position.previous_stage())
      return "the forms disagree";
    if (position.stage() != (stage + 1) % kDepth) return "the stage does not cycle";
    if (position.previous_stage() != stage) return "the previous stage is not the last one";
    if ((position.phase() != phase) != (position.stage() == 0)) return "the phase flips off a wrap";
    if (position.stage() != static_cast<uint32_t>(step) % kDepth) return "the stage drifts";
  }
  return nullptr;
}

template <uint32_t... kDepths>
int check_all() {
  int failures = 0;
  for (const auto& [depth, error] :
       {std::pair<uint32_t, const char*>{kDepths, check<kDepths>()}...}) {
    if (error != nullptr) {
      std::printf("ring of %u stages: %s\n", depth, error);
      ++failures;
    }
  }
  return failures;
}

}  // namespace

int main() {
  const int failures = check_all<1, 2, 3, 4, 5, 6, 7, 8, 9>();
  if (failures == 0)
    std::printf("ring positions: 9 ring depths, %d steps each, both forms agree\n", kSteps);
  return failures == 0 ? 0 : 1;
}
