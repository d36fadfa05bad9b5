// Where the next k-block goes in a warp-specialized kernel's ring of kDepth shared-memory stages:
// stage() and the parity of that stage's phase (the number of earlier passes over the ring, mod
// 2), phase(), which the full and empty mbarrier waits take; previous_stage(), the stage the
// consumers hand back after the next k-block's MMAs are issued. Two forms with the same sequence
// (checked on the host by tests/kernels/ring_position.cu): RingCount keeps a running count and
// divides it by kDepth at each use, RingPosition advances stage and phase one k-block at a time
// (no division, where kDepth is no power of two). Side by side on an H100
// (bench/results/2026-12-05g-h100-session, call 4), RingPosition took the block-scaled fp8 expert
// (kDepth 5) from 0.891 / 0.851 / 0.942 / 0.899 to 0.897 / 0.877 / 0.941 / 0.924 of cuBLASLt
// (4096^3 / 8192^3 / 128x8192x8192 / hidden) and the per-tensor one (kDepth 6) from 0.924 / 0.905
// to 0.909 / 0.891 (4096^3 / 8192^3): that one keeps RingCount. Experts hold a copy
// (scripts/amalgamate.py).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace {

template <uint32_t kDepth>
struct RingCount {
  static_assert(kDepth >= 1, "a ring of at least one stage");
  uint32_t count = 0;  // k-blocks through the ring so far
  __host__ __device__ __forceinline__ uint32_t stage() const { return count % kDepth; }
  __host__ __device__ __forceinline__ uint32_t phase() const { return (count / kDepth) & 1; }
  /// The stage of the k-block before this one (meaningless before the first advance()).
  __host__ __device__ __forceinline__ uint32_t previous_stage() const {
    return (count - 1) % kDepth;
  }
  __host__ __device__ __forceinline__ void advance() { ++count; }
};

template <uint32_t kDepth>
struct RingPosition {
  static_assert(kDepth >= 1, "a ring of at least one stage");
  uint32_t stage_ = 0;
  uint32_t phase_ = 0;
  __host__ __device__ __forceinline__ uint32_t stage() const { return stage_; }
  __host__ __device__ __forceinline__ uint32_t phase() const { return phase_; }
  /// The stage of the k-block before this one, around the ring (meaningless before the first
  /// advance()).
  __host__ __device__ __forceinline__ uint32_t previous_stage() const {
    return stage_ == 0 ? kDepth - 1 : stage_ - 1;
  }
  __host__ __device__ __forceinline__ void advance() {
    if (++stage_ == kDepth) {
      stage_ = 0;
      phase_ ^= 1;
    }
  }
};

}  // namespace
