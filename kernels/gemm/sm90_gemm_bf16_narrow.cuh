// Few-row GEMMs of the TMA + wgmma bf16 experts (gemm/sm90_gemm_bf16_tma_ws_gemm.cuh picks it):
// narrow (kBlockM, kNarrowN) = (128, 64) output tiles, one per CTA and all of K, where the main
// kernel's 128x256 tiles would fill less than half the SMs and the narrow ones fill most of them
// (128x8192x8192: 32 wide tiles, 128 narrow ones on 132 SMs): no fp32 partials and no second
// kernel, as split-K needs. Optionally (kNarrowCluster = 2) the two CTAs of a cluster along N
// share the tile row's A k-blocks through TMA multicast. Needs the pieces of
// gemm/sm90_gemm_bf16_tma_ws.cuh before it.
#pragma once

#include "gemm/sm90_gemm_bf16_tma_ws.cuh"

namespace {

// Whether few-row shapes take the narrow tiles (measured by bench/gemm_dev, docs/tasks.md).
constexpr bool kNarrowFewRows = true;
constexpr int kNarrowN = 64;
// CTAs along N sharing A by multicast: 1 or 2. The H200 (bench/results/2026-12-04b-*, call A):
// 128x8192x8192 44.8 us with 1, 47.3 us with 2; L2's reads of A are not what limits it.
constexpr int kNarrowCluster = 1;
static_assert(kNarrowCluster == 1 || kNarrowCluster == 2, "clusters of 1 or 2 CTAs along N");
// A stage is 24 KB (A 16, B 8). 128x8192x8192: 6 stages 51.5 us against 47.3 for 8 (2-CTA
// clusters, call A); 9 stages 48.6 us against 44.4 (call B).
constexpr int kNarrowStages = 8;
// Whether B's boxes (each read by one CTA, once) are loaded evict_first, so that A's lines (read
// by every CTA of the tile row) and C stay in L2: 49.7 -> 47.3 us (2-CTA clusters, call A).
constexpr bool kNarrowBEvictFirst = true;
// Whether A's boxes (one CTA only) are loaded evict_last: 44.4 us either way (call B).
constexpr bool kNarrowAEvictLast = false;
constexpr uint32_t kNarrowBTileBytes = kNarrowN * kBlockK * 2;

struct NarrowStorage {
  __nv_bfloat16 a[kNarrowStages][kBlockM * kBlockK];   // (kBlockM, kBlockK) per stage, swizzled
  __nv_bfloat16 b[kNarrowStages][kNarrowN * kBlockK];  // (kNarrowN, kBlockK) per stage, swizzled
  uint64_t full[kNarrowStages];
  uint64_t empty[kNarrowStages];
};
constexpr size_t kNarrowSharedBytes = sizeof(NarrowStorage) + 1024;  // +1024: alignment
static_assert(kNarrowSharedBytes <= 227 * 1024, "sm_90's opt-in shared memory per block");

// wgmma m64n64k16, bf16 x bf16 -> f32, A and B from shared memory (K-major), accumulating into d.
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], uint64_t desc_a, uint64_t desc_b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},"
      " %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b));
}

// How a few-row shape runs on narrow tiles: tile rows and (cluster-padded) tile columns; `use`
// is false where the narrow tiles are not the better cut.
struct NarrowPlan {
  bool use;
  int tiles_m, tiles_n;
};
// Narrow tiles where the main kernel would split K (its tiles fill at most half the SMs), M is
// one tile row at least kNarrowMinFill full, the narrow tiles fill at least kNarrowMinFill of
// the SMs in one wave, and K is whole k-blocks (rows of A and B start on 128-byte lines).
// Measured on the H200 (probe harness, bench/results/2026-12-04b-*, calls A-D; narrow vs
// split-K, us): one tile row wins (128x8192x8192 44.4 vs 53.0, 128x7168x5120 29.2 vs 37.3,
// 96x8192x4096 30.7 vs 33.5), but not with a K tail and rows off the 128-byte lines
// (128x8100x4104: 47.3 vs 41.5; the fp8 expert's 100x8000x4112 likewise); two tile rows lose
// (256x4096x8192 40.7 vs 39.3, 256x3584x8192 40.4 vs 37.1, with or without the B hint). A CTA
// streams its k-blocks one after another (about 0.35-0.45 us each), so fewer tiles on a long K
// lose to split-K (64x5120x17408, 80 tiles: 104 vs 61), and so do tile rows mostly past M
// (16x4096x14336: 68 vs 45; 1x4096x4096: 27 vs 20; both with the narrow tiles split along K too,
// as the first version did).
constexpr int kNarrowMinFillNum = 3, kNarrowMinFillDen = 4;  // kNarrowMinFill = 3/4
NarrowPlan plan_narrow(int64_t M, int64_t N, int64_t K, int sms) {
  const int64_t wide_tiles = ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN);
  const int64_t tiles_m = (M + kBlockM - 1) / kBlockM;
  const int64_t tiles_n =
      ((N + kNarrowN - 1) / kNarrowN + kNarrowCluster - 1) / kNarrowCluster * kNarrowCluster;
  const int64_t tiles = tiles_m * tiles_n, last_rows = M - (tiles_m - 1) * kBlockM;
  const bool use = kNarrowFewRows && wide_tiles * 2 <= sms && tiles_m == 1 && K % kBlockK == 0 &&
                   tiles <= sms && tiles * kNarrowMinFillDen >= sms * kNarrowMinFillNum &&
                   last_rows * kNarrowMinFillDen >= kBlockM * kNarrowMinFillNum;
  return {use, static_cast<int>(tiles_m), static_cast<int>(tiles_n)};
}

// One (kBlockM, kNarrowN) tile of C per CTA over all of K: CTA x = tile_m * tiles_n + tile_n,
// the kNarrowCluster CTAs of a cluster adjacent along N (tiles_n is a multiple of
// kNarrowCluster; a CTA past N still loads and shares its part of A and stores nothing).
__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_narrow(const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b, __nv_bfloat16* c, int M, int N,
                     int K, int tiles_n) {
  extern __shared__ uint8_t narrow_raw[];
  NarrowStorage& smem = *reinterpret_cast<NarrowStorage*>(
      (reinterpret_cast<uintptr_t>(narrow_raw) + 1023) & ~uintptr_t(1023));
  const int warpgroup = warpgroup_index();
  const int m0 = (blockIdx.x / tiles_n) * kBlockM, n0 = (blockIdx.x % tiles_n) * kNarrowN;
  const int k_blocks = (K + kBlockK - 1) / kBlockK;
  const uint32_t rank = kNarrowCluster == 1 ? 0 : cluster_ctarank();

  if (threadIdx.x == 0) {
    for (int s = 0; s < kNarrowStages; ++s) {
      mbar_init(&smem.full[s], 1);
      mbar_init(&smem.empty[s], kNarrowCluster * kConsumers * 4);  // every consumer warp's lane 0
    }
    fence_mbarrier_init();
  }
  if constexpr (kNarrowCluster == 1) {
    __syncthreads();
  } else {
    __syncwarp();
    cluster_sync();  // the peer's barriers exist before anything multicasts or arrives there
  }

  if (warpgroup == 0) {
    if (threadIdx.x != 0) return;
    prefetch_map(&map_a);
    prefetch_map(&map_b);
    const uint64_t policy_a = kNarrowAEvictLast ? l2_policy_evict_last() : 0;
    const uint64_t policy_b = kNarrowBEvictFirst ? l2_policy_evict_first() : 0;
    int kb = 0;
    for (; kb < k_blocks; ++kb) {
      const int s = kb % kNarrowStages;
      mbar_wait(&smem.empty[s], ((kb / kNarrowStages) & 1) ^ 1);
      mbar_arrive_expect_tx(&smem.full[s], kATileBytes + kNarrowBTileBytes);
      const int k0 = kb * kBlockK;
      if constexpr (kNarrowCluster == 1 && kNarrowAEvictLast) {
        tma_load_2d_hint(smem.a[s], &map_a, &smem.full[s], k0, m0, policy_a);
      } else if constexpr (kNarrowCluster == 1) {
        tma_load_2d(smem.a[s], &map_a, &smem.full[s], k0, m0);
      } else {  // this CTA's rows of the A tile into both CTAs (map_a's box: kBlockM / 2 rows)
        constexpr int kRows = kBlockM / kNarrowCluster;
        tma_load_2d_multicast(smem.a[s] + rank * kRows * kBlockK, &map_a, &smem.full[s], k0,
                              m0 + static_cast<int>(rank) * kRows, (1u << kNarrowCluster) - 1);
      }
      if constexpr (kNarrowBEvictFirst)
        tma_load_2d_hint(smem.b[s], &map_b, &smem.full[s], k0, n0, policy_b);
      else
        tma_load_2d(smem.b[s], &map_b, &smem.full[s], k0, n0);
    }
    // NOTE: the peer's consumers arrive on this CTA's barriers: every stage released before exit.
    if constexpr (kNarrowCluster > 1)
      for (int i = 0; i < kNarrowStages; ++i, ++kb)
        mbar_wait(&smem.empty[kb % kNarrowStages], ((kb / kNarrowStages) & 1) ^ 1);
    return;
  }

  const int consumer = warpgroup - 1;  // rows [consumer * 64, consumer * 64 + 64) of the tile
  const bool lane0 = threadIdx.x % 32 == 0;
  auto release = [&](int s) {
    if constexpr (kNarrowCluster == 1) {
      mbar_arrive(&smem.empty[s]);
    } else {
#pragma unroll
      for (uint32_t cta = 0; cta < kNarrowCluster; ++cta) mbar_arrive_cluster(&smem.empty[s], cta);
    }
  };
  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) d[i] = 0.f;
  for (int kb = 0; kb < k_blocks; ++kb) {
    const int s = kb % kNarrowStages;
    mbar_wait(&smem.full[s], (kb / kNarrowStages) & 1);
    const __nv_bfloat16* a_tile = smem.a[s] + consumer * 64 * kBlockK;  // (64, kBlockK)
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < kBlockK / 16; ++k)
      wgmma_m64n64k16(d, wgmma_desc_sw128(a_tile + k * 16, 16, 1024),
                      wgmma_desc_sw128(smem.b[s] + k * 16, 16, 1024));
    wgmma_commit();
    if (kb > 0) {
      wgmma_wait<1>();  // the group that read stage kb - 1 is done
      if (lane0) release((kb - 1) % kNarrowStages);
    }
  }
  wgmma_wait<0>();
  if (k_blocks > 0 && lane0) release((k_blocks - 1) % kNarrowStages);
  fence_regs(d);

  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row_a = m0 + consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
  for (int i = 0; i < kNarrowN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row < M && col < N)
        store_bf16_pair(c, row, col, N, d[i * 4 + half * 2], d[i * 4 + half * 2 + 1]);
    }
  }
}

// C = A * B^T on narrow tiles as `plan` says (plan.use): PTXB_OK, kNoTensorMap or
// kLaunchFailed. The caller checked the tensors.
int run_narrow(const NarrowPlan& plan, const void* a, const void* b, __nv_bfloat16* c, int64_t M,
               int64_t N, int64_t K, cudaStream_t stream) {
  CUtensorMap map_a, map_b;
  if (!encode_k_major(&map_a, a, M, K, kBlockM / kNarrowCluster) ||
      !encode_k_major(&map_b, b, N, K, kNarrowN))
    return kNoTensorMap;
  cudaLaunchAttribute cluster_dims = {};
  cluster_dims.id = cudaLaunchAttributeClusterDimension;
  cluster_dims.val.clusterDim = {static_cast<unsigned>(kNarrowCluster), 1, 1};
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(plan.tiles_m * plan.tiles_n);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kNarrowSharedBytes;
  config.stream = stream;
  config.attrs = &cluster_dims;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, gemm_bf16_narrow, map_a, map_b, c, static_cast<int>(M),
                            static_cast<int>(N), static_cast<int>(K), plan.tiles_n) == cudaSuccess
             ? PTXB_OK
             : kLaunchFailed;
}

}  // namespace
