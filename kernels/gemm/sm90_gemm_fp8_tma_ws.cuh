// The pieces of the warp-specialized TMA + wgmma E4M3 GEMM of the fp8 expert solutions (C = A *
// B^T with E4M3 operands, fp32 accumulation, bf16 out; row-major, K-major): the tile's shared
// memory and mbarrier ring, the producer, the consumers with partial sums promoted every k-block
// by a promotion policy (per-tensor: a plain sum; block-scaled: times that k-block's scales), the
// epilogue (stores from registers, or the TMA-store epilogue of gemm/sm90_tma_store_tile.cuh),
// split-K's partial stores and reduction (kSplitK), the tile loop and the host's tensor maps.
// Experts hold a copy (scripts/amalgamate.py); each chooses the two knobs below.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cstdint>

#include "gemm/sm90_gemm_split_sum.cuh"
#include "gemm/sm90_ring_position.cuh"
#include "gemm/sm90_tma_store_tile.cuh"
#include "ptx/cluster.cuh"
#include "ptx/griddepcontrol.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/setmaxnreg.cuh"
#include "ptx/smem.cuh"
#include "ptx/tensor_map.cuh"
#include "ptx/tma.cuh"
#include "ptx/wgmma.cuh"

namespace {

constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 128;  // 128 E4M3 = 128 bytes: one row of the 128-byte swizzle pattern
constexpr int kStages = kStagedScales ? 5 : 6;
constexpr int kConsumers = 2;  // consumer warpgroups, each (64, kBlockN)
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr uint32_t kATileBytes = kBlockM * kBlockK;
constexpr uint32_t kBTileBytes = kBlockN * kBlockK;
constexpr int kAccum = kBlockN / 2;  // fp32 accumulator registers per thread (64 x kBlockN / 128)
// The expert declares before this file, in the anonymous namespace: kPersistent (a CTA per SM
// loops over output tiles, the producer loading the next tile while the consumers store the
// last; else a CTA per tile), kTmaStoreEpilogue (C leaves through the TMA-store epilogue,
// staging of its own, (64, kBlockN) bf16 per consumer: 16 KB each, next to the 6 stages; else
// bf16x2 stores from registers), kGroupM (tile rows sharing each B column tile while it is in
// L2; in cluster launches, blocks of kClusterM tile rows) and kClusterM (CTAs per cluster along
// M: 1, or 2 for pairs computing tiles (m0, n0) and (m0 + kBlockM, n0), each loading its A tile
// and half of their common B tile, multicast into both: a quarter less L2-to-SM traffic per
// CTA; a launch pairs CTAs only with no split of K and two tile rows or more (cluster_for),
// otherwise it runs the kernels' 1-CTA instantiation) and kStagedScales (the block-scaled
// expert's scales loaded by TMA with each stage's tiles into a slot per stage, ScaleSlot; the
// ring then has 5 stages, 6 do not fit beside the slots; false for the per-tensor expert).
static_assert(kClusterM == 1 || kClusterM == 2, "clusters of 1 or 2 CTAs along M");
static_assert(kGroupM >= 1, "at least one tile row per raster group");
constexpr uint32_t kStagingBytes = 64 * kBlockN * 2;  // a consumer's staged tile

struct SharedStorage {
  uint8_t a[kStages][kBlockM * kBlockK];  // (kBlockM, kBlockK) per stage, swizzled
  uint8_t b[kStages][kBlockN * kBlockK];  // (kBlockN, kBlockK) per stage, swizzled
  uint64_t full[kStages];
  uint64_t empty[kStages];
  // NOTE: last, so that the layout before it does not depend on kTmaStoreEpilogue.
  static constexpr size_t kStagingAlign = kTmaStoreEpilogue ? 1024 : 8;  // the swizzle atom
  alignas(kStagingAlign) uint8_t staging[kTmaStoreEpilogue ? kConsumers * kStagingBytes : 8];
};
// A stage's scales when kStagedScales, each a 1-D TMA box of its tensor read flat, starting on
// the 16-byte boundary at or before the first value the tile needs: a[lead + r] = sa[kb, m0 + r]
// for the tile's rows, lead = scale_lead(kb * M + m0) (rows past M hold whatever follows in sa,
// or zeros past its end: those rows are never stored), and b[lead] = sb[n0 / kBlockN, kb], lead =
// scale_lead(n-block * k_blocks + kb) (the rest unused). NOTE: a 1-D TMA load must start on a
// 16-byte boundary: at element starts 1, 2, 3, 5 and 31 every box size from 4 to 128 fp32 values
// stopped with "illegal instruction", at 0, 4, 8, 32 and 60 all loaded (H100,
// bench/probes/tma_1d_probe.cu, bench/results/2026-12-05f-h100-session). Placed after
// SharedStorage (sizeof a multiple of its 1024-byte alignment), so that its layout is the same
// either way.
constexpr int kScaleLead = 4;    // fp32 values in 16 bytes: boxes start at multiples of it
struct alignas(128) ScaleSlot {  // NOTE: 128-byte aligned TMA destinations
  float a[kBlockM + kScaleLead];
  alignas(128) float b[32];  // a TMA box of 128 bytes
};
static_assert(kBlockM + kScaleLead <= 256, "a TMA box holds at most 256 values a dimension");
static_assert(sizeof(ScaleSlot::a) % 16 == 0 && sizeof(ScaleSlot::b) % 16 == 0,
              "a TMA box's inner dimension is a multiple of 16 bytes");
// The place in its slot's box of the scale at flat index `first` >= 0 (the values before it in
// the box: its 16-byte boundary's). The producer's box starts at first - scale_lead(first).
// NOTE: an unsigned remainder, a mask; a signed one costs the consumers a sign fix-up (four
// instructions in two k-blocks).
[[maybe_unused]] __host__ __device__ constexpr int scale_lead(int first) {
  return static_cast<int>(static_cast<uint32_t>(first) % kScaleLead);
}
// NOTE: [[maybe_unused]]: the per-tensor expert has no use for the slots.
[[maybe_unused]] constexpr uint32_t kScaleABytes = sizeof(ScaleSlot::a);
[[maybe_unused]] constexpr uint32_t kScaleBBytes = sizeof(ScaleSlot::b);
constexpr size_t kScaleSlotsBytes = kStagedScales ? kStages * sizeof(ScaleSlot) : 0;
// NOTE: +1024 so the kernel can align the dynamic shared-memory base to the swizzle atom.
constexpr size_t kSharedBytes = sizeof(SharedStorage) + kScaleSlotsBytes + 1024;
static_assert(kSharedBytes <= 227 * 1024, "sm_90's opt-in shared memory per block");

// wgmma m64n128k32, e4m3 x e4m3 -> f32, A and B from shared memory (K-major: fp8 has no
// transposed form). Accumulates into d (64 floats per thread) when scale_d != 0, overwrites it
// when 0.
__device__ __forceinline__ void wgmma_m64n128k32_e4m3(float (&d)[kAccum], uint64_t desc_a,
                                                      uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {"
      "%0, %1, %2, %3, %4, %5, %6, %7,"
      "%8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23,"
      "%24, %25, %26, %27, %28, %29, %30, %31,"
      "%32, %33, %34, %35, %36, %37, %38, %39,"
      "%40, %41, %42, %43, %44, %45, %46, %47,"
      "%48, %49, %50, %51, %52, %53, %54, %55,"
      "%56, %57, %58, %59, %60, %61, %62, %63},"
      " %64, %65, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

struct TileCoord {
  int m0;
  int n0;
};

// Grouped raster: kGroupM consecutive tile rows share each B column tile while it is in L2.
__device__ __forceinline__ TileCoord tile_of_block(int block, int tiles_m, int tiles_n) {
  const int per_group = kGroupM * tiles_n;
  const int group = block / per_group;
  const int first_m = group * kGroupM;
  const int rows_in_group = min(tiles_m - first_m, kGroupM);
  const int in_group = block % per_group;
  return {(first_m + in_group % rows_in_group) * kBlockM, (in_group / rows_in_group) * kBlockN};
}

// Work units of a launch in clusters of kCluster CTAs along M: unit u is block u % blocks of C
// (grouped raster over blocks of kCluster tile rows by one tile column) and split u / blocks of
// K; the CTA of rank r in its cluster computes the block's tile row r (a row past M, in the last
// block of an odd number of tile rows, loads zeros and stores nothing).
template <int kCluster>
struct UnitMap {
  int rows, tiles_n, blocks, rank;
  __device__ __forceinline__ UnitMap(int M, int N)
      : rows(((M + kBlockM - 1) / kBlockM + kCluster - 1) / kCluster),
        tiles_n((N + kBlockN - 1) / kBlockN),
        blocks(rows * tiles_n),
        rank(kCluster == 1 ? 0 : static_cast<int>(cluster_ctarank())) {}
  __device__ __forceinline__ TileCoord tile(int u) const {
    const TileCoord block = tile_of_block(u % blocks, rows, tiles_n);
    if constexpr (kCluster == 1) return block;
    return {(block.m0 / kBlockM * kCluster + rank) * kBlockM, block.n0};
  }
  __device__ __forceinline__ int split(int u) const { return u / blocks; }
};

// This thread's first row of a consumer's (64, kBlockN) tile starting at row0; its second is 8
// below. Fragment layout of wgmma's D: row warp*16 + lane/4 (+8), cols 8i + 2(lane%4) (+1).
__device__ __forceinline__ int fragment_row(int row0) {
  return row0 + ((threadIdx.x / 32) % 4) * 16 + (threadIdx.x % 32) / 4;
}

// Writes a consumer's (64, kBlockN) fp32 accumulator tile times `scale` as bf16, masking rows >= M,
// cols >= N.
__device__ __forceinline__ void store_tile(const float (&d)[kAccum], float scale, __nv_bfloat16* c,
                                           int row0, int n0, int M, int N) {
  const int lane = threadIdx.x % 32;
  const int row_a = fragment_row(row0);
  const bool pair_ok = (N % 2) == 0;  // bf16x2 stores need an even row pitch
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row >= M || col >= N) continue;
      const float v0 = d[i * 4 + half * 2] * scale;
      const float v1 = d[i * 4 + half * 2 + 1] * scale;
      __nv_bfloat16* dst = c + static_cast<int64_t>(row) * N + col;
      if (pair_ok && col + 1 < N) {
        *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(v0, v1);
      } else {
        dst[0] = __float2bfloat16_rn(v0);
        if (col + 1 < N) dst[1] = __float2bfloat16_rn(v1);
      }
    }
  }
}

// Writes a consumer's (64, kBlockN) fp32 accumulator tile times `scale` as fp32 partial sums into
// `part` (row-major (M, N)), masking rows >= M, cols >= N; float2 stores when N is even.
__device__ __forceinline__ void store_partial(const float (&d)[kAccum], float scale, float* part,
                                              int row0, int n0, int M, int N) {
  const int lane = threadIdx.x % 32;
  const int row_a = fragment_row(row0);
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row >= M || col >= N) continue;
      float* dst = part + static_cast<int64_t>(row) * N + col;
      const float v0 = d[i * 4 + half * 2] * scale, v1 = d[i * 4 + half * 2 + 1] * scale;
      if (N % 2 == 0 && col + 1 < N) {
        *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
      } else {
        dst[0] = v0;
        if (col + 1 < N) dst[1] = v1;
      }
    }
  }
}

// Split-K for shapes whose output tiles fill less than half the SMs (few rows): `splits` work
// units per tile, each kMinKBlocksPerSplit k-blocks at least, their fp32 partials (times the
// scale) summed in split order by reduce_splits, a programmatic dependent launch of the GEMM
// kernel (its CTAs allow it at their start; it waits for the GEMM grid). Both experts split; the
// block-scaled one applies each split's own block scales at its promotions. H200, with
// kOverlapPromotion: per tensor 128x8192x8192 0.867 -> 0.884 of cuBLASLt
// (bench/results/2026-12-03f-h200-session-083f534), block-scaled 0.876 -> 0.971-0.988
// (bench/results/2026-12-03g-h200-session-2d2472b, call C), the other shapes level
// (bench/gemm_dev/variants.sh `fp8_nosplitk`, `fp8b_nosplitk`).
constexpr bool kSplitK = true;
constexpr int kMinKBlocksPerSplit = 4;  // 512 E4M3 elements of K
SplitK split_k(int64_t M, int64_t N, int64_t K, int sms) {
  const int64_t tiles = ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN);
  const int k_blocks = static_cast<int>((K + kBlockK - 1) / kBlockK);
  return cut_k(k_blocks, kSplitK ? few_tile_splits(tiles, k_blocks, sms, kMinKBlocksPerSplit) : 1);
}

// The shared memory of a CTA, aligned to 1024 bytes (the 128-byte swizzle's period).
__device__ __forceinline__ SharedStorage& shared_storage() {
  extern __shared__ uint8_t smem_raw[];
  return *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                           ~uintptr_t(1023));
}

// The ScaleSlots of the ring's stages (kStagedScales), after shared_storage().
[[maybe_unused]] __device__ __forceinline__ ScaleSlot* scale_slots(SharedStorage& smem) {
  return reinterpret_cast<ScaleSlot*>(reinterpret_cast<uint8_t*>(&smem) + sizeof(SharedStorage));
}

// Calls body(u) for each work unit u of this CTA's cluster c (blockIdx.x / kCluster of the
// launch's C clusters): c, c + C, ... below `units` when kPersistent, else c alone (a cluster
// per unit).
template <int kCluster = 1, typename Body>
__device__ __forceinline__ void for_each_tile(int units, Body&& body) {
  const int cluster = static_cast<int>(blockIdx.x) / kCluster;
  if constexpr (kPersistent) {
    const int clusters = static_cast<int>(gridDim.x) / kCluster;
    for (int u = cluster; u < units; u += clusters) body(u);
  } else {
    body(cluster);
  }
}

// Thread 0: one full and one empty mbarrier per stage (the empty one counts the consumer warps
// of every CTA of the cluster: they all read the stage's multicast half of B).
template <int kCluster = 1>
__device__ __forceinline__ void init_barriers(SharedStorage& smem) {
  for (int s = 0; s < kStages; ++s) {
    mbar_init(&smem.full[s], 1);
    mbar_init(&smem.empty[s], kCluster * kConsumers * 4);  // lane 0 of every consumer warp
  }
  fence_mbarrier_init();
}

// Every thread, after thread 0's init_barriers: the barriers exist (in every CTA of the cluster)
// before any thread waits on them or a peer multicasts or arrives there.
template <int kCluster = 1>
__device__ __forceinline__ void barriers_ready() {
  if constexpr (kCluster == 1) {
    __syncthreads();
  } else {
    __syncwarp();  // barrier.cluster is .aligned: the warp converged
    cluster_sync();
  }
}

// The producer thread: streams the tile's (kBlockM, kBlockK) A and (kBlockN, kBlockK) B k-blocks
// through the ring: k_blocks of them from k-block kb_begin (a split of K; 0: the whole K). `ring`
// (RingCount or RingPosition, gemm/sm90_ring_position.cuh) is where this CTA's earlier tiles left
// the ring (a fresh one for the first) and is advanced past this tile's. In a cluster of 2 (map_b's
// box: kBlockN / 2 rows) each CTA loads its half of B into both CTAs; a CTA's full barrier still
// expects the whole B tile. `extra` loads StageLoads::kBytes more into stage s for k-block kb of
// tile (m0, n0) on the stage's full barrier: extra.load(smem, s, kb, m0, n0). Each expert defines
// its StageLoads (the per-tensor expert: none; the block-scaled one: its scales, into the stage's
// ScaleSlot).
template <int kCluster, typename StageLoads, typename Ring>
__device__ __forceinline__ void produce(SharedStorage& smem, const CUtensorMap* map_a,
                                        const CUtensorMap* map_b, int m0, int n0, int k_blocks,
                                        Ring& ring, int kb_begin, const StageLoads& extra) {
  prefetch_map(map_a);
  prefetch_map(map_b);
  for (int kb = 0; kb < k_blocks; ++kb, ring.advance()) {
    const uint32_t s = ring.stage();
    // NOTE: a fresh barrier counts as having completed the phase before phase 0, so the first
    // pass over the ring (parity 1) does not wait.
    mbar_wait(&smem.empty[s], ring.phase() ^ 1);
    mbar_arrive_expect_tx(&smem.full[s], kATileBytes + kBTileBytes + StageLoads::kBytes);
    tma_load_2d(smem.a[s], map_a, &smem.full[s], (kb_begin + kb) * kBlockK, m0);
    extra.load(smem, s, kb_begin + kb, m0, n0);
    if constexpr (kCluster == 1) {
      tma_load_2d(smem.b[s], map_b, &smem.full[s], (kb_begin + kb) * kBlockK, n0);
    } else {
      constexpr int kHalf = kBlockN / kCluster;
      const uint32_t rank = cluster_ctarank();
      tma_load_2d_multicast(smem.b[s] + rank * kHalf * kBlockK, map_b, &smem.full[s],
                            (kb_begin + kb) * kBlockK, n0 + static_cast<int>(rank) * kHalf,
                            (1u << kCluster) - 1);
    }
  }
}

// The producer thread, after its last unit in a cluster of 2: waits until the consumers of both
// CTAs released every stage, so that no peer arrives on this CTA's barriers after it exits.
template <int kCluster, typename Ring>
__device__ __forceinline__ void producer_tail(SharedStorage& smem, Ring ring) {
  if constexpr (kCluster > 1)
    for (int i = 0; i < kStages; ++i, ring.advance())
      mbar_wait(&smem.empty[ring.stage()], ring.phase() ^ 1);
}

// Lane 0 of a consumer warp: stage `s` read, back to the producer of every CTA of the cluster
// (each refills the stage's half of B in both).
template <int kCluster = 1>
__device__ __forceinline__ void release_stage(SharedStorage& smem, uint32_t s) {
  if constexpr (kCluster == 1) {
    mbar_arrive(&smem.empty[s]);
  } else {
#pragma unroll
    for (uint32_t cta = 0; cta < kCluster; ++cta) mbar_arrive_cluster(&smem.empty[s], cta);
  }
}

// A promotion policy (each expert defines its own): Scales load(kb, s) gives what
// apply(scales, part, acc) needs to add k-block kb's partial sums `part` into `acc` (stage s);
// consume() calls it before waiting for the stage when kReadsStage is false (global loads that
// overlap the wait), after it when true (loads from the stage's ScaleSlot).

// Whether a consumer promotes each k-block's partial sums while the next k-block's MMAs run (two
// partial buffers, alternating) instead of after waiting for its own MMAs (the tensor cores of
// this warpgroup idle during every promotion). H200
// (bench/results/2026-12-03f-h200-session-083f534): per tensor 0.855/0.829/0.863/0.894 ->
// 0.927/0.888/0.867/0.943 of cuBLASLt, block-scaled 0.697/0.678/0.680/0.671 ->
// 0.837/0.844/0.908/0.785 (bench/gemm_dev/variants.sh `fp8_nooverlap`, `fp8b_nooverlap`).
constexpr bool kOverlapPromotion = true;

// Whether mma_k_block forms the descriptors of a k-block's k-slices from the first slice's
// (wgmma_desc_advance by the slice's 32 bytes) instead of from each slice's address (a mask, a
// shift and an or per descriptor: 8 descriptors a k-block). In the block-scaled consumers' loop,
// 109 -> 93 instructions besides the FFMAs in two k-blocks (ptxas 13.0). H100, one machine start
// (bench/results/2026-12-05g-h100-session, calls 7 and 8): kernels alone, block-scaled 126.2 ->
// 119.6 us at 4096^3 and 913.7 -> 871.7 at 8192^3, per tensor 111.7 -> 108.8 and 828.8 -> 827.5;
// `ptxbench eval`, one round, block-scaled (with the unsigned scale_lead below) 0.905 / 0.896 /
// 0.942 / 0.901 -> 0.946 / 0.944 / 0.944 / 0.932 of cuBLASLt, per tensor 0.917 / 0.910 / 1.102 /
// 0.917 -> 0.925 / 0.909 / 1.103 / 0.926 (bench/gemm_dev/variants.sh `fp8b_slicedesc`,
// `fp8_slicedesc` turn it off).
constexpr bool kStepDescriptors = true;

// The MMAs of one k-block (stage s) for consumer warpgroup `consumer` into `part`, committed as
// one group.
__device__ __forceinline__ void mma_k_block(SharedStorage& smem, int consumer, uint32_t s,
                                            float (&part)[kAccum]) {
  const uint8_t* a_tile = smem.a[s] + consumer * 64 * kBlockK;  // (64, kBlockK)
  const uint8_t* b_tile = smem.b[s];                            // (kBlockN, kBlockK)
  const uint64_t a_desc = wgmma_desc_sw128(a_tile, 16, 1024);
  const uint64_t b_desc = wgmma_desc_sw128(b_tile, 16, 1024);
  wgmma_fence();
#pragma unroll
  for (int k = 0; k < kBlockK / 32; ++k) {
    // NOTE: inside a 128-byte swizzled row, the k-th 32-element slice starts 32*k bytes in;
    // the hardware applies the swizzle to the computed addresses.
    const uint64_t a_slice = wgmma_desc_sw128_slice<kStepDescriptors>(a_tile, a_desc, 32 * k);
    const uint64_t b_slice = wgmma_desc_sw128_slice<kStepDescriptors>(b_tile, b_desc, 32 * k);
    wgmma_m64n128k32_e4m3(part, a_slice, b_slice, k > 0 ? 1 : 0);
  }
  wgmma_commit();
}

// Consumer warpgroup `consumer`: its (64, kBlockN) half of the tile in acc (fp32). Each k-block's
// MMAs accumulate in a partial buffer (the tensor cores' fp8 accumulation), then promotion.apply
// adds it into acc; promotion.load(kb, s) runs before the k-block's wait, so its loads overlap the
// MMAs (or after it, reading the stage: Promotion::kReadsStage). The k-blocks are kb_begin ..
// kb_begin + k_blocks - 1 (a split of K; 0: from the first). kOverlapPromotion: k-block kb's MMAs
// go into buffer kb % 2 and are issued before k-block kb - 1 is promoted (once its group is done:
// wgmma_wait<1>). `ring` as in produce(): the consumers' position runs in step with the
// producer's.
template <int kCluster = 1, typename Promotion, typename Ring>
__device__ __forceinline__ void consume(SharedStorage& smem, int consumer, int k_blocks,
                                        const Promotion& promotion, float (&acc)[kAccum],
                                        Ring& ring, int kb_begin = 0) {
  const bool lane0 = (threadIdx.x % 32) == 0;
  float part[kAccum];
#pragma unroll
  for (int i = 0; i < kAccum; ++i) acc[i] = 0.f;
  // Waits for stage s (at the ring's position) and gives k-block kb's scales, loaded before the
  // wait or after it (Promotion::kReadsStage).
  auto wait_and_load = [&](int kb, uint32_t s) {
    if constexpr (Promotion::kReadsStage) {
      mbar_wait(&smem.full[s], ring.phase());
      return promotion.load(kb, s);
    } else {
      const auto scales = promotion.load(kb, s);
      mbar_wait(&smem.full[s], ring.phase());
      return scales;
    }
  };

  if constexpr (kOverlapPromotion) {
    // At the loop's head `part` holds the newest k-block, in flight; `other` is free.
    float other[kAccum];
    decltype(promotion.load(0, 0)) part_scales{}, other_scales{};
    // Issues k-block kb's MMAs into `into`, then promotes the k-block before it (`done`, its group
    // finished once only the newest may run) and hands its stage back.
    auto step = [&](int kb, float(&into)[kAccum], float(&done)[kAccum],
                    decltype(promotion.load(0, 0))& into_scales,
                    const decltype(promotion.load(0, 0))& done_scales) {
      const uint32_t s = ring.stage();
      into_scales = wait_and_load(kb_begin + kb, s);
      mma_k_block(smem, consumer, s, into);
      wgmma_wait<1>();
      fence_regs(done);
      if (lane0) release_stage<kCluster>(smem, ring.previous_stage());
      promotion.apply(done_scales, done, acc);
      ring.advance();
    };
    if (k_blocks == 0) return;
    {
      const uint32_t s = ring.stage();
      part_scales = wait_and_load(kb_begin, s);
      mma_k_block(smem, consumer, s, part);
      ring.advance();
    }
    int kb = 1;
    for (; kb + 1 < k_blocks; kb += 2) {
      step(kb, other, part, other_scales, part_scales);
      step(kb + 1, part, other, part_scales, other_scales);
    }
    if (kb < k_blocks) {  // one k-block left: into `other`, and `other` promoted last
      step(kb, other, part, other_scales, part_scales);
      wgmma_wait<0>();
      fence_regs(other);
      if (lane0) release_stage<kCluster>(smem, ring.previous_stage());
      promotion.apply(other_scales, other, acc);
    } else {
      wgmma_wait<0>();
      fence_regs(part);
      if (lane0) release_stage<kCluster>(smem, ring.previous_stage());
      promotion.apply(part_scales, part, acc);
    }
  } else {
    for (int kb = 0; kb < k_blocks; ++kb, ring.advance()) {
      const uint32_t s = ring.stage();
      const auto scales = wait_and_load(kb_begin + kb, s);
      mma_k_block(smem, consumer, s, part);
      wgmma_wait<0>();  // the stage is read and `part` complete: release, then promote
      fence_regs(part);
      if (lane0) release_stage<kCluster>(smem, s);
      promotion.apply(scales, part, acc);
    }
  }
}

// A consumer's tile of C: acc times `scale`, through the TMA-store epilogue when store_by_tma
// (kTmaStoreEpilogue and a map of C), else from registers.
__device__ __forceinline__ void store_output(const float (&acc)[kAccum], float scale,
                                             SharedStorage& smem, const CUtensorMap* map_c,
                                             bool store_by_tma, __nv_bfloat16* c, int consumer,
                                             int row0, int n0, int M, int N) {
  if (kTmaStoreEpilogue && store_by_tma)
    store_tile_tma<kBlockN, kBlockN, true>(acc, scale, smem.staging + consumer * kStagingBytes,
                                           64 * kStoreBoxCols * 2, map_c, consumer, row0, n0);
  else
    store_tile(acc, scale, c, row0, n0, M, N);
}

// A consumer warpgroup after its last tile: the TMA stores still reading its staging finish
// before the CTA exits.
__device__ __forceinline__ void finish_stores() {
  if (kTmaStoreEpilogue && threadIdx.x % 128 == 0) bulk_wait_group_read<0>();
}

// ---- host side ----

int g_sms = 0;  // the device's SM count, read by read_sm_count (ptxb_plan)

bool read_sm_count() {
  int device = 0;
  return cudaGetDevice(&device) == cudaSuccess &&
         cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess;
}

// Lets `kernel` (an instantiation of an expert's kernel) take kSharedBytes of shared memory.
template <typename Kernel>
bool allow_shared_bytes(Kernel kernel) {
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(kSharedBytes)) == cudaSuccess;
}

// CTAs for `units` work units in clusters of `cluster` CTAs: a cluster per unit, or at most as
// many clusters as the SMs hold when kPersistent.
int grid_for(int units, int cluster = 1) {
  const int clusters = g_sms / cluster;
  return (kPersistent && clusters > 0 && clusters < units ? clusters : units) * cluster;
}

// The cluster size of a launch: kClusterM where K is not split and C has two tile rows or more.
int cluster_for(const SplitK& split, int64_t M) {
  return kClusterM > 1 && split.splits == 1 && M > kBlockM ? kClusterM : 1;
}

// `kernel` on `blocks` CTAs (a multiple of `cluster`) in clusters of `cluster` CTAs along x (a
// plain launch for 1).
template <typename... Params, typename... Args>
cudaError_t launch_in_clusters(void (*kernel)(Params...), int blocks, int cluster,
                               cudaStream_t stream, Args... args) {
  cudaLaunchAttribute cluster_dims = {};
  cluster_dims.id = cudaLaunchAttributeClusterDimension;
  cluster_dims.val.clusterDim = {static_cast<unsigned>(cluster), 1, 1};
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kSharedBytes;
  config.stream = stream;
  config.attrs = &cluster_dims;
  config.numAttrs = cluster > 1 ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
}

// Whether C can leave by TMA stores (kTmaStoreEpilogue and a 16-byte row pitch); maps it if so.
bool map_output(CUtensorMap* map_c, void* c, int64_t M, int64_t N) {
  return kTmaStoreEpilogue && encode_c_store(map_c, c, M, N);
}

// A row-major (rows, k) E4M3 matrix read in (box_rows, kBlockK) boxes with the 128-byte swizzle.
bool encode_k_major(CUtensorMap* map, const void* ptr, int64_t rows, int64_t k, uint32_t box_rows) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(k)};
  const cuuint32_t box[2] = {kBlockK, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(ptr), dims, strides, box,
                element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

bool is_row_major_2d(const ptxb_tensor_desc& t, int32_t dtype, int64_t rows, int64_t cols) {
  return t.dtype == dtype && t.rank == 2 && t.shape[0] == rows && t.shape[1] == cols &&
         t.strides[0] == cols && t.strides[1] == 1;
}

enum Status : int { kBadProblem = 1, kNoTensorMap = 2, kLaunchFailed = 3 };

// The workspace ptxb_plan asks for: the fp32 partials of every split where split_k splits the
// problem's (M, K) x (N, K) product, else none. Needs read_sm_count first.
uint64_t split_workspace_bytes(const ptxb_problem& problem) {
  if (problem.num_inputs < 2 || problem.inputs[0].rank != 2 || problem.inputs[1].rank != 2)
    return 0;
  const int64_t M = problem.inputs[0].shape[0], K = problem.inputs[0].shape[1],
                N = problem.inputs[1].shape[0];
  return split_partial_bytes(split_k(M, N, K, g_sms), M, N);
}

}  // namespace
