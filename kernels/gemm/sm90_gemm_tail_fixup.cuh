// The stream-K tail's shared tiles summed inside the GEMM kernel (kTailFixup of
// gemm/sm90_gemm_bf16_tma_ws_gemm.cuh) instead of by reduce_tail after it. A tail tile that the
// ranges of several CTAs touch (TailSchedule::first_cta..last_cta) has, per consumer half, two
// counters in the workspace after the partial slots: arrivals and stored partials. A piece's
// consumer warpgroup arrives once its accumulator holds the piece. Every piece but the last to
// arrive stores its fragments as fp32 partials and counts itself stored; the last waits until the
// others are stored (they arrived before it, so they are running and store without waiting on
// anything: no CTA waits on one that may not have started), adds their partials to its
// accumulator in CTA order (the k order reduce_tail sums in: the same rounding) and leaves the
// tile to the caller to store as C. A counter word holds epoch << 32 | count, and a word of
// another epoch counts as zero: the workspace needs no clearing, since ptxb_run passes a new epoch
// (never 0) to every launch; the last piece zeroes its tile's words, so that a replay of the same
// launch finds them clear. Needs the ring and the tail schedule before it; experts hold a copy
// (scripts/amalgamate.py). The bookkeeping is checked on the host by
// tests/kernels/gemm_tail_schedule.cu; the synchronization only on a GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gemm/sm90_gemm_bf16_ws_ring.cuh"
#include "gemm/sm90_gemm_tail_schedule.cuh"
#include "ptx/barrier.cuh"

namespace {

constexpr int kFixupWords = 2;    // per tail tile and consumer half: arrivals, stored partials
constexpr int kFixupBarrier = 4;  // named barriers 4 + consumer (store_tile_tma has 2 + consumer)
constexpr int kFixupQuads = kBlockN / 8;  // float4s of a consumer thread's accumulator
// float4 loads of another piece's partial kept in flight: 8 made the consumer spill (420 bytes)
// under the kernel's 168 registers a thread, 4 does not.
constexpr int kFixupBatch = 4;
static_assert(kFixupQuads % kFixupBatch == 0, "whole batches");

// Floats of the partial slots of `s` (tail_partial_bytes / 4): the counters follow them.
__host__ __device__ __forceinline__ int64_t tail_slot_floats(const TailSchedule& s) {
  return static_cast<int64_t>(s.ctas) * kMaxTailPieces * kBlockM * kBlockN;
}
// Workspace bytes of the counters of `s`.
uint64_t tail_fixup_bytes(const TailSchedule& s) {
  return static_cast<uint64_t>(s.tail_tiles) * kConsumers * kFixupWords * sizeof(uint64_t);
}
// Index of the first counter word of tail tile t's half `consumer` among the counters.
__host__ __device__ __forceinline__ int64_t fixup_word_index(int t, int consumer) {
  return (static_cast<int64_t>(t) * kConsumers + consumer) * kFixupWords;
}

// The count a counter word holds in `epoch` (a word of another epoch holds none), and the word
// of a count.
__host__ __device__ __forceinline__ uint32_t epoch_count(uint64_t word, uint32_t epoch) {
  return static_cast<uint32_t>(word >> 32) == epoch ? static_cast<uint32_t>(word) : 0u;
}
__host__ __device__ __forceinline__ uint64_t epoch_word(uint32_t epoch, uint32_t count) {
  return (static_cast<uint64_t>(epoch) << 32) | count;
}

// Index of float4 q of the calling consumer thread's accumulator in a partial slot: the slot
// holds the fragments as [consumer][warp][q][lane] float4s (a warp's stores and loads of one q
// cover 512 contiguous bytes). Private to tail_fixup: reduce_tail's slots are row-major.
__device__ __forceinline__ int64_t fixup_quad(int consumer, int q) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  return ((static_cast<int64_t>(consumer) * 4 + warp) * kFixupQuads + q) * 32 + lane;
}

__device__ __forceinline__ uint64_t ld_acquire_gpu(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void fence_acq_rel_gpu() {
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

// Adds one to the count at `word` in `epoch` (relaxed); returns the count before it.
__device__ __forceinline__ uint32_t epoch_increment(uint64_t* word, uint32_t epoch) {
  auto* w = reinterpret_cast<unsigned long long*>(word);
  unsigned long long seen = *reinterpret_cast<volatile unsigned long long*>(w);
  for (;;) {
    const unsigned long long prev =
        atomicCAS(w, seen, epoch_word(epoch, epoch_count(seen, epoch) + 1));
    if (prev == seen) return epoch_count(seen, epoch);
    seen = prev;
  }
}

// Tail tile t's piece computed by CTA `cta` into d, held by consumer warpgroup `consumer` (all
// its 128 threads call this): true when it was the tile's last piece to arrive and d now holds
// the tile's whole sum (the caller stores it as C), false when d went out as the piece's partial.
// `partials`: the workspace (slots, then counters); `decision`: a word of shared memory only this
// consumer uses.
__device__ __forceinline__ bool tail_fixup(float (&d)[kBlockN / 2], float* partials,
                                           const TailSchedule& s, int t, int cta, int consumer,
                                           uint32_t epoch, uint32_t* decision) {
  const int first = s.first_cta(t), last = s.last_cta(t);
  uint64_t* words =
      reinterpret_cast<uint64_t*>(partials + tail_slot_floats(s)) + fixup_word_index(t, consumer);
  auto slot_of = [&](int c) {
    return reinterpret_cast<float4*>(partials +
                                     static_cast<int64_t>(s.slot(c, t)) * kBlockM * kBlockN);
  };
  const bool leader = threadIdx.x % 128 == 0;
  if (leader)
    *decision = epoch_increment(&words[0], epoch) + 1 == static_cast<uint32_t>(last - first + 1);
  named_barrier_sync<128>(kFixupBarrier + consumer);
  // NOTE: every path below passes the barrier again before a later call rewrites `decision`.
  const bool is_last = *static_cast<volatile uint32_t*>(decision) != 0;
  if (!is_last) {
    float4* mine = slot_of(cta);
#pragma unroll
    for (int q = 0; q < kFixupQuads; ++q)
      __stcg(mine + fixup_quad(consumer, q),
             make_float4(d[4 * q], d[4 * q + 1], d[4 * q + 2], d[4 * q + 3]));
    named_barrier_sync<128>(kFixupBarrier + consumer);  // the warpgroup's fragments are stored
    if (leader) {
      fence_acq_rel_gpu();  // with the barrier: the stores before the count (release)
      epoch_increment(&words[1], epoch);
    }
    return false;
  }
  if (leader) {
    while (epoch_count(ld_acquire_gpu(&words[1]), epoch) < static_cast<uint32_t>(last - first)) {
    }
    words[0] = 0;  // every other piece has counted on both words: none touches them again
    words[1] = 0;
  }
  named_barrier_sync<128>(kFixupBarrier + consumer);  // the others' partials are visible
#pragma unroll
  for (int q0 = 0; q0 < kFixupQuads; q0 += kFixupBatch) {
    float4 sum[kFixupBatch];
    for (int c = first; c <= last; ++c) {
      float4 piece[kFixupBatch];
      if (c == cta) {
#pragma unroll
        for (int i = 0; i < kFixupBatch; ++i)
          piece[i] = make_float4(d[4 * (q0 + i)], d[4 * (q0 + i) + 1], d[4 * (q0 + i) + 2],
                                 d[4 * (q0 + i) + 3]);
      } else {
        const float4* other = slot_of(c);
#pragma unroll
        for (int i = 0; i < kFixupBatch; ++i)
          piece[i] = __ldcg(other + fixup_quad(consumer, q0 + i));
      }
#pragma unroll
      for (int i = 0; i < kFixupBatch; ++i) {
        if (c == first) {
          sum[i] = piece[i];
        } else {
          sum[i].x += piece[i].x;
          sum[i].y += piece[i].y;
          sum[i].z += piece[i].z;
          sum[i].w += piece[i].w;
        }
      }
    }
#pragma unroll
    for (int i = 0; i < kFixupBatch; ++i) {
      d[4 * (q0 + i)] = sum[i].x;
      d[4 * (q0 + i) + 1] = sum[i].y;
      d[4 * (q0 + i) + 2] = sum[i].z;
      d[4 * (q0 + i) + 3] = sum[i].w;
    }
  }
  return true;
}

}  // namespace
