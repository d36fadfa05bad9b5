// The stream-K tail's shared tiles summed inside the GEMM kernel (kTailFixup of
// gemm/sm90_gemm_bf16_tma_ws_gemm.cuh) instead of by reduce_tail after it. Of the CTAs whose
// ranges touch a tail tile (TailSchedule::first_cta..last_cta), the last finishes it: the others
// store their pieces as fp32 partials and each sets a flag in the workspace (after the partial
// slots: one per slot and consumer half); the last CTA's consumer waits for the flags of its half,
// adds the partials to its accumulator in CTA order (the k order reduce_tail sums in: the same
// rounding) and leaves the tile to the caller to store as C. A CTA waits only on CTAs of lower
// index, which the GPU starts no later than it, so no CTA waits on one that may never start; and
// taking the pieces in descending order (TailOrder::pieces_descending) has the last CTA reach its
// piece after the others stored theirs. A flag holds the epoch of the launch that set it: ptxb_run
// passes a new epoch (never 0) to every launch, so the workspace needs no clearing, and the
// finishing CTA clears the flags it read, so a replay of the same launch finds them clear. No
// atomics (they would add a hardware-counter pass to the evidence run: docs/evidence.md, "Cost").
// Needs the ring and the tail schedule before it; experts hold a copy (scripts/amalgamate.py).
// The bookkeeping is checked on the host by tests/kernels/gemm_tail_schedule.cu; the
// synchronization only on a GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gemm/sm90_gemm_bf16_ws_ring.cuh"
#include "gemm/sm90_gemm_tail_schedule.cuh"
#include "ptx/barrier.cuh"

namespace {

constexpr int kFixupBarrier = 4;  // named barriers 4 + consumer (store_tile_tma has 2 + consumer)
constexpr int kFixupQuads = kBlockN / 8;  // float4s of a consumer thread's accumulator
// float4 loads of another piece's partial kept in flight: 8 made the consumer spill (420 bytes)
// under the kernel's 168 registers a thread, 4 does not.
constexpr int kFixupBatch = 4;
static_assert(kFixupQuads % kFixupBatch == 0, "whole batches");

// Floats of the partial slots of `s` (tail_partial_bytes / 4): the flags follow them.
__host__ __device__ __forceinline__ int64_t tail_slot_floats(const TailSchedule& s) {
  return static_cast<int64_t>(s.ctas) * kMaxTailPieces * kBlockM * kBlockN;
}
// Workspace bytes of the flags of `s`.
uint64_t tail_fixup_bytes(const TailSchedule& s) {
  return static_cast<uint64_t>(s.ctas) * kMaxTailPieces * kConsumers * sizeof(uint32_t);
}
// Index of the flag of partial slot `slot`'s half `consumer` among the flags.
__host__ __device__ __forceinline__ int64_t fixup_flag_index(int slot, int consumer) {
  return static_cast<int64_t>(slot) * kConsumers + consumer;
}

// Index of float4 q of the calling consumer thread's accumulator in a partial slot: the slot
// holds the fragments as [consumer][warp][q][lane] float4s (a warp's stores and loads of one q
// cover 512 contiguous bytes). Private to tail_fixup: reduce_tail's slots are row-major.
__device__ __forceinline__ int64_t fixup_quad(int consumer, int q) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  return ((static_cast<int64_t>(consumer) * 4 + warp) * kFixupQuads + q) * 32 + lane;
}

__device__ __forceinline__ uint32_t ld_acquire_gpu(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
// Sets *p to v after every write the calling thread made or observed before it (a release).
__device__ __forceinline__ void st_release_gpu(uint32_t* p, uint32_t v) {
  asm volatile("fence.acq_rel.gpu;\n\tst.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v)
               : "memory");
}

// Tail tile t's piece computed by CTA `cta` into d, held by consumer warpgroup `consumer` (all
// its 128 threads call this): true when `cta` finishes the tile (its last CTA) and d now holds
// the tile's whole sum (the caller stores it as C), false when d went out as the piece's partial.
// `partials`: the workspace (slots, then flags).
__device__ __forceinline__ bool tail_fixup(float (&d)[kBlockN / 2], float* partials,
                                           const TailSchedule& s, int t, int cta, int consumer,
                                           uint32_t epoch) {
  const int first = s.first_cta(t), last = s.last_cta(t);
  uint32_t* flags = reinterpret_cast<uint32_t*>(partials + tail_slot_floats(s));
  auto slot_of = [&](int c) {
    return reinterpret_cast<float4*>(partials +
                                     static_cast<int64_t>(s.slot(c, t)) * kBlockM * kBlockN);
  };
  const bool leader = threadIdx.x % 128 == 0;
  if (cta != last) {
    float4* mine = slot_of(cta);
#pragma unroll
    for (int q = 0; q < kFixupQuads; ++q)
      __stcg(mine + fixup_quad(consumer, q),
             make_float4(d[4 * q], d[4 * q + 1], d[4 * q + 2], d[4 * q + 3]));
    named_barrier_sync<128>(kFixupBarrier + consumer);  // the warpgroup's fragments are stored
    if (leader) st_release_gpu(&flags[fixup_flag_index(s.slot(cta, t), consumer)], epoch);
    return false;
  }
  if (leader) {
    for (int c = first; c < last; ++c) {
      uint32_t* flag = &flags[fixup_flag_index(s.slot(c, t), consumer)];
      while (ld_acquire_gpu(flag) != epoch) {
      }
      *flag = 0;  // read: no other CTA touches it again in this launch
    }
  }
  named_barrier_sync<128>(kFixupBarrier + consumer);  // the others' partials are visible
  // d += the partials of CTAs first..last - 1, summed in that order first (reduce_tail's order)
#pragma unroll
  for (int q0 = 0; q0 < kFixupQuads; q0 += kFixupBatch) {
    // NOTE: the first partial loaded apart, not under `c == first` in the loop: that form made
    // the consumer spill (5 KB).
    float4 sum[kFixupBatch];
    const float4* first_partial = slot_of(first);
#pragma unroll
    for (int i = 0; i < kFixupBatch; ++i)
      sum[i] = __ldcg(first_partial + fixup_quad(consumer, q0 + i));
    for (int c = first + 1; c < last; ++c) {
      const float4* other = slot_of(c);
      float4 piece[kFixupBatch];
#pragma unroll
      for (int i = 0; i < kFixupBatch; ++i) piece[i] = __ldcg(other + fixup_quad(consumer, q0 + i));
#pragma unroll
      for (int i = 0; i < kFixupBatch; ++i) {
        sum[i].x += piece[i].x;
        sum[i].y += piece[i].y;
        sum[i].z += piece[i].z;
        sum[i].w += piece[i].w;
      }
    }
#pragma unroll
    for (int i = 0; i < kFixupBatch; ++i) {
      d[4 * (q0 + i)] = sum[i].x + d[4 * (q0 + i)];
      d[4 * (q0 + i) + 1] = sum[i].y + d[4 * (q0 + i) + 1];
      d[4 * (q0 + i) + 2] = sum[i].z + d[4 * (q0 + i) + 2];
      d[4 * (q0 + i) + 3] = sum[i].w + d[4 * (q0 + i) + 3];
    }
  }
  return true;
}

}  // namespace
