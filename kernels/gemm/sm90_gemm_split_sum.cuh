// Split-K of the GEMM experts (gemm/sm90_gemm_bf16_tma_ws_gemm.cuh, gemm/sm90_gemm_fp8_tma_ws.cuh):
// how K is cut, the sum of the splits' partials, and the launch of such sums as programmatic
// dependents of the GEMM kernel that wrote the partials. Experts hold a copy
// (scripts/amalgamate.py).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "ptx/griddepcontrol.cuh"

namespace {

// How a GEMM expert cuts K: k-blocks per split and the number of splits (1: no split).
struct SplitK {
  int split_kb;
  int splits;
};
// The splits of a shape whose `tiles` output tiles fill at most half of the `sms` SMs: as many as
// the idle SMs allow while every split keeps min_k_blocks of the k_blocks; 1 for larger shapes.
int few_tile_splits(int64_t tiles, int k_blocks, int sms, int min_k_blocks) {
  if (tiles * 2 > sms) return 1;
  return static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(sms / tiles, k_blocks / min_k_blocks)));
}
// K's k_blocks cut into at most `splits` splits of equal size, none of them empty.
SplitK cut_k(int k_blocks, int splits) {
  const int split_kb = (k_blocks + splits - 1) / splits;
  return {split_kb, (k_blocks + split_kb - 1) / split_kb};
}

// The workspace the fp32 partials of `split` take for an (M, N) output: none for one split.
uint64_t split_partial_bytes(const SplitK& split, int64_t M, int64_t N) {
  return split.splits > 1 ? static_cast<uint64_t>(split.splits) * M * N * sizeof(float) : 0;
}

// C = the sum over the splits of the fp32 partials (`splits` planes of `count` elements), in split
// order, rounded to bf16: four elements a step (16-byte loads: the ABI's pointers are 256-byte
// aligned, and count % 4 == 0 keeps every split's partials aligned), else one by one. The loads of
// the first kReduceInFlight splits are issued together before the sum (one memory latency per step
// instead of one per split: the reduction is latency-bound otherwise: the loop's SASS had up to
// three load latencies per step at four splits); the launch gives every thread about one step.
// H200, bf16 experts side by side with the loads one by one
// (bench/results/2026-12-03f-h200-session-083f534, call A): 128x8192x8192 0.872 -> 0.877 of
// cuBLASLt, the llm task's few-row shapes 0.940 -> 0.947 and 0.962 -> 0.970.
constexpr int kReduceInFlight = 8;
__global__ void reduce_splits(const float* partials, __nv_bfloat16* c, int64_t count, int splits) {
  // Launched as a programmatic dependent: the GEMM grid has completed and its partials are
  // visible after this. Returns at once after an ordinary launch.
  griddep_wait();
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int64_t first = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  const int64_t quads = count % 4 == 0 ? count / 4 : 0;
  const auto* parts = reinterpret_cast<const float4*>(partials);
  for (int64_t q = first; q < quads; q += stride) {
    float4 p[kReduceInFlight];
#pragma unroll
    for (int s = 0; s < kReduceInFlight; ++s)
      if (s < splits) p[s] = parts[s * quads + q];
    float4 sum = p[0];
#pragma unroll
    for (int s = 1; s < kReduceInFlight; ++s) {
      if (s >= splits) break;
      sum.x += p[s].x;
      sum.y += p[s].y;
      sum.z += p[s].z;
      sum.w += p[s].w;
    }
    for (int s = kReduceInFlight; s < splits; ++s) {
      const float4 more = parts[s * quads + q];
      sum.x += more.x;
      sum.y += more.y;
      sum.z += more.z;
      sum.w += more.w;
    }
    __nv_bfloat162* out = reinterpret_cast<__nv_bfloat162*>(c + 4 * q);
    out[0] = __floats2bfloat162_rn(sum.x, sum.y);
    out[1] = __floats2bfloat162_rn(sum.z, sum.w);
  }
  for (int64_t i = quads * 4 + first; i < count; i += stride) {
    float sum = partials[i];
    for (int s = 1; s < splits; ++s) sum += partials[s * count + i];
    c[i] = __float2bfloat16_rn(sum);
  }
}

// `kernel` on enough CTAs of 256 threads for `steps` one per thread (at most 32 per SM of `sms`),
// a programmatic dependent of the kernel before it on `stream` when `dependent` (its CTAs may
// launch once every CTA of that kernel allowed it; they wait in griddep_wait), else an
// ordinary launch.
template <typename... Params, typename... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), int64_t steps, int sms, bool dependent,
                             cudaStream_t stream, Args... args) {
  const auto ctas = static_cast<unsigned>(std::min<int64_t>((steps + 255) / 256, 32 * sms));
  return launch_programmatic(kernel, dim3(ctas), dim3(256), 0, stream, dependent, args...);
}

// After the GEMM kernel on `stream` wrote `split.splits` partial (M, N) products into `partials`:
// reduce_splits sums them into c, a programmatic dependent of that kernel when `dependent`, on
// `sms` SMs. Nothing to do for one split.
cudaError_t sum_splits(const SplitK& split, const float* partials, __nv_bfloat16* c, int64_t M,
                       int64_t N, int sms, bool dependent, cudaStream_t stream) {
  if (split.splits <= 1) return cudaSuccess;
  const int64_t count = M * N;
  return launch_dependent(reduce_splits, count % 4 == 0 ? count / 4 : count, sms, dependent, stream,
                          partials, c, count, split.splits);
}

}  // namespace
