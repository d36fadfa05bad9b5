// The stream-K tail of the persistent bf16 GEMM built on the ring of
// gemm/sm90_gemm_bf16_ws_ring.cuh with the TMA producer (gemm/sm90_gemm_bf16_tma_ws_gemm.cuh): the
// tail schedule of a problem's (kBlockM, kBlockN) tiles, its workspace, and reduce_tail, which sums
// the tail tiles several CTAs share into C. Needs the ring and gemm/sm90_gemm_tail_schedule.cuh
// before it; experts hold a copy (scripts/amalgamate.py).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "gemm/sm90_gemm_bf16_ws_ring.cuh"
#include "gemm/sm90_gemm_tail_schedule.cuh"
#include "ptx/griddepcontrol.cuh"

namespace {

// The tail schedule of an (M, N, K) problem on at most `sms` persistent CTAs where it has at least
// `min_waves` full waves of tiles (gated_tail_schedule), else none.
TailSchedule ring_tail_schedule(int64_t M, int64_t N, int64_t K, int sms, int min_waves) {
  return gated_tail_schedule(((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN),
                             static_cast<int>((K + kBlockK - 1) / kBlockK), sms, min_waves);
}
uint64_t tail_bytes(const TailSchedule& tail) {
  return tail_partial_bytes(tail, kBlockM * kBlockN);
}

// C over the tail tiles that several CTAs share: sum_tail_tiles, launched as a programmatic
// dependent of the GEMM kernel (griddep_wait returns at once after an ordinary launch).
__global__ void reduce_tail(const float* partials, __nv_bfloat16* c, const TailSchedule s, int M,
                            int N) {
  griddep_wait();
  const int rows = (M + kBlockM - 1) / kBlockM, tiles_n = (N + kBlockN - 1) / kBlockN;
  sum_tail_tiles<kBlockM, kBlockN>(
      partials, s, M, N, [&](int block) { return tile_of_block(block, rows, tiles_n); },
      [&](int row, int col, float v0, float v1) { store_bf16_pair(c, row, col, N, v0, v1); });
}

}  // namespace
