// The warp-specialized cp.async + wgmma bf16 GEMM (C = A * B^T, bf16 in, fp32 accumulation, bf16
// out, row-major, B K-major; no TMA): a producer warpgroup of 128 threads fills the ring of
// gemm/sm90_gemm_bf16_ws_ring.cuh with 16-byte cp.async copies, two consumer warpgroups run
// wgmma on it, one CTA per SM loops over the output tiles, and few-tile shapes split K (fp32
// partials summed by reduce_splits, gemm/sm90_gemm_split_sum.cuh). Needs the ring and the split
// sum before it (scripts/amalgamate.py copies them); ptxb_plan / ptxb_run at the end.
// NOTE: no stream-K tail (the TMA expert's, gemm/sm90_gemm_bf16_tail_reduce.cuh): on this kernel
// it measured 2-3% slower on every shape, also on those without a tail (H200, 0.746 / 0.699 /
// 0.748 / 0.823 against 0.767 / 0.704 / 0.767 / 0.828 of cuBLASLt;
// bench/results/2026-12-05b-h200-session, whose v2 and v3 tars hold that source).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cstdint>

#include "gemm/sm90_gemm_bf16_ws_ring.cuh"
#include "gemm/sm90_gemm_split_sum.cuh"
#include "ptx/barrier.cuh"
#include "ptx/cp_async.cuh"
#include "ptx/griddepcontrol.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/prefetch.cuh"
#include "ptx/setmaxnreg.cuh"
#include "ptx/smem.cuh"

namespace {

constexpr int kProducerThreads = 128;            // warpgroup 0, every thread copies
constexpr int kChunksPerRow = kBlockK * 2 / 16;  // 16-byte chunks of a tile row (8)
constexpr int kRowsPerPass =
    kProducerThreads / kChunksPerRow;  // rows one pass of the threads fills
// k-blocks whose copies a producer thread keeps in flight before it waits for the oldest, makes it
// visible to the async proxy and marks its stage full. The consumers can then hold two stages (one
// in wgmma, one waiting for release) while the producer fills the others: kStages >= kLag + 2, or
// the producer would wait for a stage the consumers can only free after a stage it still holds.
constexpr int kLag = 2;
// Whether each producer thread's stage is marked full by the hardware when its copies complete
// (cp.async.mbarrier.arrive.noinc: no wait, no fence in the producer; the consumers fence the
// stage to the async proxy after their wait) instead of after kLag more k-blocks (the wait,
// fence and arrive above). On the H200 (bench/results/2026-12-05b-h200-session) 0.779 / 0.727 /
// 0.775 / 0.833 of cuBLASLt against 0.758 / 0.696 / 0.751 / 0.826 with the lag.
constexpr bool kArriveOnCompletion = true;
// k-blocks ahead of its copies at which every producer thread asks L2 for a unit's rows
// (prefetch.global.L2, a line of each of three of the tile's 384 rows a k-block; 0: none), so
// that the copies, which the ring's depth keeps at most kStages k-blocks ahead of the wgmma, find
// their lines in L2 more often than in DRAM. 2 and 4 were 1-16% slower on every timed shape (H100,
// bench/results/2026-12-05d-h100-session, variants `wgmma_prefetch2`, `wgmma_prefetch4`).
constexpr int kL2PrefetchAhead = 0;
// Whether a producer thread whose rows of a tile are all in bounds (every tile but the last row
// and column of tiles) copies without the per-copy bound, selects and source size
// (copy_tile_chunks' unchecked path): the producer's k-block 160 -> 99 instructions on such tiles
// (static, ptxas 13.0, bench/sass_loops.py --around LDGSTS). H100, three interleaved rounds of
// `ptxbench eval` beside the expert without it (bench/results/2026-12-06b-session, call A): 1.088
// / 1.113 / 1.063 / 1.001 of its speedups (4096^3, 8192^3, 4000x3000x2000, 128x8192x8192);
// 1.112 / 1.138 / 1.090 / 1.002 with the warp-uniform warpgroup index too. The producer's issue
// rate bounded the kernel. Undone by variants `wgmma_checked`, `wgmma_checked_threadwg`.
constexpr bool kUncheckedInterior = true;
static_assert(kStages >= kLag + 2, "the ring must hold the lag and the consumers' two stages");
static_assert(kClusterM == 1, "cp.async fills one CTA's ring: no multicast");
static_assert(kBlockM % kRowsPerPass == 0 && kBlockN % kRowsPerPass == 0, "whole passes");
// Whether reduce_splits is a programmatic dependent of the split GEMM (its launch hidden under it).
constexpr bool kSplitPdl = true;
// Whether a whole tile leaves through the consumer's staging (store_tile_staged: 16-byte stores of
// whole 128-byte row segments) instead of bf16x2 stores from the accumulators (store_tile). The
// TMA expert's direct stores cost it 8-12% against its staged (TMA) stores; the older cp.async
// expert gained from the same staging.
constexpr bool kStagedEpilogue = true;
static_assert(!kStagedEpilogue || (kOwnStaging && kStagingCols == 128 && kBlockN % 128 == 0),
              "a consumer stages (64, 128) of its (64, kBlockN) tile at a time");

// This producer thread's 16-byte chunks of the (kRows, kBlockK) tile at rows [row0, row0 + kRows)
// and columns [k0, k0 + kBlockK) of a row-major (num_rows, K) matrix: chunk `chunk` of tile rows
// first, first + kRowsPerPass, ..., written into `stage` in the 128-byte swizzle the wgmma
// descriptors describe (chunk c of row r at chunk c ^ (r % 8)). Rows past num_rows and columns
// past K are zero-filled (cp.async's source size 0; K % 8 == 0: a chunk is all in or all out) and
// read the matrix's first element instead, so no address leaves the matrix.
// NOTE: unrolled, one pointer walking the rows: a copy costs about six instructions (bound,
// selects, the copy, the 64-bit step). The loop it replaces, with a row and column bound and a
// 64-bit address per copy, took about 22, and the producer's issue rate bounded the kernel; the
// hoisted row addresses of every copy would not fit the producer's 40 registers (setmaxnreg).
template <int kRows>
__device__ __forceinline__ void copy_tile_chunks(__nv_bfloat16* stage, const __nv_bfloat16* src,
                                                 int num_rows, int K, int row0, int k0, int first,
                                                 int chunk) {
  const int k = k0 + chunk * 8;
  const int rows_left = k < K ? num_rows - row0 - first : 0;  // rows of this thread in bounds
  const __nv_bfloat16* from = src + static_cast<int64_t>(row0 + first) * K + k;
  const int64_t pass_stride = static_cast<int64_t>(kRowsPerPass) * K;
  // (first % 8) == (r % 8) for every row r this thread copies: one swizzled chunk position.
  __nv_bfloat16* to = stage + first * kBlockK + ((chunk ^ (first % 8)) * 8);
  // The last row's bound, which every earlier row also meets.
  if (kUncheckedInterior && (kRows / kRowsPerPass - 1) * kRowsPerPass < rows_left) {
#pragma unroll
    for (int i = 0; i < kRows / kRowsPerPass; ++i) {
      cp_async_16_full(to + i * kRowsPerPass * kBlockK, from);
      from += pass_stride;
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < kRows / kRowsPerPass; ++i) {
    const bool in_bounds = i * kRowsPerPass < rows_left;
    cp_async_16(to + i * kRowsPerPass * kBlockK, in_bounds ? from : src, in_bounds ? 16 : 0);
    from += pass_stride;
  }
}

// This producer thread's share of the L2 prefetch of k-block column k0 of the unit's A and B
// tiles (kL2PrefetchAhead): the first line of tile rows thread, thread + kProducerThreads, ...
// (A's kBlockM rows, then B's kBlockN), rows past M or N skipped.
__device__ __forceinline__ void prefetch_unit_rows(const __nv_bfloat16* a, const __nv_bfloat16* b,
                                                   int M, int N, int K, const TileWork& w, int k0,
                                                   int thread) {
  static_assert((kBlockM + kBlockN) % kProducerThreads == 0 && kBlockM % kProducerThreads == 0,
                "whole passes, each all A or all B");
#pragma unroll
  for (int pass = 0; pass < (kBlockM + kBlockN) / kProducerThreads; ++pass) {
    const int r = pass * kProducerThreads + thread;
    const bool in_a = pass < kBlockM / kProducerThreads;
    const int row = in_a ? w.m0 + r : w.b_row0 + r - kBlockM;
    if (row < (in_a ? M : N)) prefetch_l2((in_a ? a : b) + static_cast<int64_t>(row) * K + k0);
  }
}

// Every producer thread: streams the unit's (kBlockM, kBlockK) A and (kBlockN, kBlockK) B k-blocks
// through the ring, each thread kRowsPerPass-th of the rows, one chunk column. `it` as in
// consume(): the k-blocks this CTA put through the ring before, advanced past this unit's. A stage
// is full once all kProducerThreads threads arrived on it, each after its own copies landed and a
// proxy fence made them visible to wgmma's reads (NOTE: cp.async writes through the generic proxy).
// The unit's last kLag k-blocks are marked full at its end.
__device__ __forceinline__ void produce_cp_async(SharedStorage& smem, const __nv_bfloat16* a,
                                                 const __nv_bfloat16* b, int M, int N, int K,
                                                 const TileWork& w, uint32_t& it) {
  const int thread = static_cast<int>(threadIdx.x) % kProducerThreads;
  const int chunk = thread % kChunksPerRow, first = thread / kChunksPerRow;
  int pending = 0;  // k-blocks copied by this thread, not yet marked full
  for (int kb = 0; kb < w.k_blocks; ++kb, ++it) {
    const uint32_t s = it % kStages;
    if (kL2PrefetchAhead > 0 && kb + kL2PrefetchAhead < w.k_blocks)
      prefetch_unit_rows(a, b, M, N, K, w, (w.kb_begin + kb + kL2PrefetchAhead) * kBlockK, thread);
    // NOTE: a fresh barrier counts as having completed the phase before phase 0 (parity 1).
    mbar_wait(&smem.empty[s], ((it / kStages) & 1) ^ 1);
    const int k0 = (w.kb_begin + kb) * kBlockK;
    copy_tile_chunks<kBlockM>(smem.a[s], a, M, K, w.m0, k0, first, chunk);
    copy_tile_chunks<kBlockN>(smem.b[s], b, N, K, w.b_row0, k0, first, chunk);
    cp_async_commit();
    if constexpr (kArriveOnCompletion) {
      cp_async_mbar_arrive_noinc(&smem.full[s]);
      continue;
    }
    if (pending < kLag) {
      ++pending;
      continue;
    }
    cp_async_wait<kLag>();  // k-block it - kLag has landed
    fence_proxy_async_shared();
    mbar_arrive(&smem.full[(it - kLag) % kStages]);
  }
  if constexpr (kArriveOnCompletion) return;
  cp_async_wait<0>();
  fence_proxy_async_shared();
  for (; pending > 0; --pending) mbar_arrive(&smem.full[(it - pending) % kStages]);
}

// Consumer warpgroup `consumer`'s (64, kBlockN) tile of accumulators d at rows [row0, row0 + 64)
// and columns [n0, n0 + kBlockN) of C, rounded to bf16, through its `staging` (64 x 128 bf16) in
// kBlockN / 128 passes: the accumulators go to two (64, 64) halves of 128-byte rows with the
// 128-byte swizzle (chunk c of row r at chunk c ^ (r % 8): conflict-free), then every thread of
// the warpgroup stores 16-byte chunks, a row's 16 chunks by 16 consecutive threads. Elements past
// M or N are masked. Named barrier 1 + consumer (its 128 threads) orders the writes and reads.
__device__ __forceinline__ void store_tile_staged(const float (&d)[kBlockN / 2], uint8_t* staging,
                                                  __nv_bfloat16* c, int row0, int n0, int M, int N,
                                                  int consumer) {
  static_assert(kConsumers == 2, "named barriers 1 and 2, one per consumer warpgroup");
  constexpr uint32_t kHalfBytes = 64 * 128;  // a (64, 64) bf16 half
  constexpr int kPassGroups = 16;            // 8-column groups of the accumulators per pass
  const int thread = static_cast<int>(threadIdx.x) % 128;
  const int warp = thread / 32, lane = thread % 32;
  auto sync_consumer = [&] {  // NOTE: immediate ids (ptx/barrier.cuh)
    if (consumer == 0)
      named_barrier_sync_immediate<1, 128>();
    else
      named_barrier_sync_immediate<2, 128>();
  };
#pragma unroll
  for (int pass = 0; pass < kBlockN / 128; ++pass) {
#pragma unroll
    for (int j = 0; j < kPassGroups; ++j) {
      const int i = pass * kPassGroups + j;  // the accumulators' 8-column group
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = warp * 16 + lane / 4 + half * 8;
        *reinterpret_cast<__nv_bfloat162*>(staging + (j / 8) * kHalfBytes + r * 128 +
                                           (((j % 8) ^ (r % 8)) * 16) + (lane % 4) * 4) =
            __floats2bfloat162_rn(d[i * 4 + half * 2], d[i * 4 + half * 2 + 1]);
      }
    }
    sync_consumer();  // the pass is staged
#pragma unroll
    for (int k = 0; k < 64 * kPassGroups / 128; ++k) {
      const int idx = k * 128 + thread;
      const int r = idx / kPassGroups, chunk = idx % kPassGroups;
      const int row = row0 + r, col = n0 + pass * 128 + chunk * 8;
      if (row >= M || col >= N) continue;
      const uint8_t* from =
          staging + (chunk / 8) * kHalfBytes + r * 128 + (((chunk % 8) ^ (r % 8)) * 16);
      __nv_bfloat16* dst = c + static_cast<int64_t>(row) * N + col;
      if (N % 8 == 0) {  // col + 8 <= N and 16-byte aligned
        *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(from);
      } else {
        const auto* e = reinterpret_cast<const __nv_bfloat16*>(from);
        for (int q = 0; q < 8 && col + q < N; ++q) dst[q] = e[q];
      }
    }
    sync_consumer();  // read before the next pass (or tile) overwrites it
  }
}

// Work unit u: output tile u % blocks (grouped raster) and K split u / blocks (k-blocks
// [split * split_kb, (split + 1) * split_kb)). CTA x takes units x, x + gridDim.x, ... One split
// writes C; several write fp32 partials (`splits` planes of M x N) for reduce_splits.
__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_cp_async_ws(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                          __nv_bfloat16* __restrict__ c, float* partials, int M, int N, int K,
                          int split_kb, int splits) {
  SharedStorage& smem = shared_storage();
  // The split reduction (kSplitPdl) may launch now; it waits for this grid to complete.
  if (kSplitPdl && splits > 1) griddep_launch_dependents();
  // NOTE: warp-uniform (ptx/wgmma.cuh): 1.014 / 1.007 / 1.017 / 1.000 of the speedups with
  // threadIdx.x / 128 on the H100 (bench/results/2026-12-06b-session, `wgmma_uniformwg`).
  const int warpgroup = warpgroup_index();
  const int tiles_m = (M + kBlockM - 1) / kBlockM, tiles_n = (N + kBlockN - 1) / kBlockN;
  const int blocks = tiles_m * tiles_n;
  const int units = blocks * splits;
  const int k_total = (K + kBlockK - 1) / kBlockK;
  auto work_of = [&](int u) {
    const TileCoord tile = tile_of_block(u % blocks, tiles_m, tiles_n);
    const int kb_begin = (u / blocks) * split_kb;
    return TileWork{tile.m0, tile.n0, tile.n0, kb_begin, min(k_total - kb_begin, split_kb)};
  };

  if (threadIdx.x == 0) init_barriers(smem, kProducerThreads);
  __syncthreads();

  uint32_t it = 0;  // k-blocks through the ring so far (produce_cp_async, consume)
  if (warpgroup == 0) {
    setmaxnreg_dec<40>();
    for (int u = blockIdx.x; u < units; u += gridDim.x)
      produce_cp_async(smem, a, b, M, N, K, work_of(u), it);
    return;
  }

  setmaxnreg_inc<232>();
  const int consumer = warpgroup - 1;
  for (int u = blockIdx.x; u < units; u += gridDim.x) {
    const TileWork w = work_of(u);
    float d[kBlockN / 2];
    consume<kArriveOnCompletion>(smem, consumer, w.k_blocks, d, it,
                                 slices_in_last_k_block(w.kb_begin + w.k_blocks, K));
    if (splits > 1)
      store_partial(d, partials + static_cast<int64_t>(u / blocks) * M * N, w.m0 + consumer * 64,
                    w.n0, M, N);
    else if (kStagedEpilogue)
      store_tile_staged(d, smem.staging + consumer * kStagingBytes, c, w.m0 + consumer * 64, w.n0,
                        M, N, consumer);
    else
      store_tile(d, c, w.m0 + consumer * 64, w.n0, M, N);
  }
}

int g_sms = 0;  // the device's SM count, read by ptxb_plan

// Splits only where the output tiles fill at most half of the SMs (gemm/sm90_gemm_split_sum.cuh).
SplitK split_k(int64_t M, int64_t N, int64_t K, int sms) {
  const int64_t tiles = ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN);
  const int k_blocks = static_cast<int>((K + kBlockK - 1) / kBlockK);
  return cut_k(k_blocks, few_tile_splits(tiles, k_blocks, sms, kMinKBlocksPerSplit));
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaFuncSetAttribute(gemm_bf16_cp_async_ws, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kSharedBytes)) != cudaSuccess)
    return kLaunchFailed;
  *workspace_bytes = 0;
  if (problem->num_inputs == 2 && problem->inputs[0].rank == 2 && problem->inputs[1].rank == 2) {
    const int64_t M = problem->inputs[0].shape[0], K = problem->inputs[0].shape[1],
                  N = problem->inputs[1].shape[0];
    *workspace_bytes = split_partial_bytes(split_k(M, N, K, g_sms), M, N);
  }
  return PTXB_OK;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const std::optional<GemmDims> dims = gemm_dims(*args->problem);
  if (!dims) return kBadProblem;
  const auto [M, N, K] = *dims;
  const SplitK split = split_k(M, N, K, g_sms);
  if (args->workspace_bytes < split_partial_bytes(split, M, N)) return kBadProblem;
  const auto stream = static_cast<cudaStream_t>(args->stream);
  auto* c = static_cast<__nv_bfloat16*>(args->outputs[0]);
  auto* partials = static_cast<float*>(args->workspace);
  const int64_t units =
      ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN) * split.splits;
  const int ctas = static_cast<int>(std::min<int64_t>(units, g_sms));
  gemm_bf16_cp_async_ws<<<ctas, kThreads, kSharedBytes, stream>>>(
      static_cast<const __nv_bfloat16*>(args->inputs[0]),
      static_cast<const __nv_bfloat16*>(args->inputs[1]), c, partials, static_cast<int>(M),
      static_cast<int>(N), static_cast<int>(K), split.split_kb, split.splits);
  if (sum_splits(split, partials, c, M, N, g_sms, kSplitPdl, stream) != cudaSuccess)
    return kLaunchFailed;
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}
