// The plain GEMM of the TMA + wgmma expert solutions: the kernel over a grouped raster of output
// tiles with split-K for few-tile shapes, the split reduction, and ptxb_plan / ptxb_run. Needs the
// pieces of gemm/sm90_gemm_bf16_tma_ws.cuh before it (scripts/amalgamate.py copies both).
#pragma once

#include "gemm/sm90_gemm_bf16_narrow.cuh"
#include "gemm/sm90_gemm_bf16_tail_reduce.cuh"
#include "gemm/sm90_gemm_bf16_tma_ws.cuh"
#include "gemm/sm90_gemm_split_sum.cuh"
#include "gemm/sm90_gemm_tail_fixup.cuh"
#include "gemm/sm90_gemm_tail_schedule.cuh"
#include "ptx/barrier.cuh"
#include "ptx/griddepcontrol.cuh"

namespace {

// Whether a CTA loops over work units (one CTA per SM, the mbarrier ring running on from unit to
// unit so that the producer loads the next tile while the consumers store the last) or takes one
// unit (one CTA per unit). Persistent with kOwnStaging and 4 stages measured 0.994 / 0.974 / 0.998
// of cuBLASLt against 0.959 / 0.955 / 0.927 one unit per CTA (bench/gemm_dev, docs/tasks.md).
constexpr bool kPersistent = true;
// Whether a tile of C leaves through shared memory and TMA stores (store_tile_tma; full 128-byte
// lines, clipped by the map) instead of masked bf16x2 stores from registers. Without kOwnStaging
// the staging reuses the consumer's rows of the A stages, free once a CTA's single unit is
// consumed; a kPersistent CTA's producer already refills them.
constexpr bool kTmaStoreEpilogue = true;
// Whether the own staging (kStagingCols = 128 columns a consumer) is used as two buffers of one
// 64-column box, the tile leaving in four passes whose writes overlap the previous pass's store,
// instead of one buffer of two boxes, in two passes of which the second waits until the first's
// store has read the staging. Off: level on the H200 (0.985 / 0.983 / 0.988 / 1.025 against
// 0.986 / 0.984 / 0.986 / 1.026, bench/results/2026-12-05b-h200-session, `tma_dbstore`).
constexpr bool kDoubleBufferedStore = false;
constexpr int kStorePassCols = kDoubleBufferedStore ? kStoreBoxCols : kStagingCols;
// Whether split-K work units (few-row shapes) keep their fp32 partials in L2 for the reduction:
// B's boxes, read once, loaded evict_first, A's (read by every tile column) and the partial
// stores evict_last. Off: measured by bench/gemm_dev (`tma_split_l2policy`) before it is taken;
// Nsight Compute showed the reduction reading its 16 MB of partials from DRAM at 128x8192x8192.
constexpr bool kSplitL2Policy = false;
// Whether reduce_splits is launched as a programmatic dependent of the split GEMM kernel: the
// GEMM's CTAs allow it at their start, so it is launched (its CTAs waiting in griddepcontrol.wait
// until the GEMM grid has finished and its partials are visible) while the GEMM still runs,
// instead of after it: the launch gap between the two kernels is hidden.
constexpr bool kSplitPdl = true;
// Whether the last, partial wave of output tiles is spread over every CTA (stream-K on the tail,
// gemm/sm90_gemm_tail_schedule.cuh; 8192^3: 2048 tiles = 15 waves of 132 and 68), its partials
// summed by reduce_tail (a programmatic dependent launch, like reduce_splits). Only where split-K
// does not apply (tiles * 2 > SMs), with persistent CTAs and at
// least kStreamKMinWaves full waves. On the H200 (bench/results/2026-12-03f-h200-session-083f534)
// ungated it gained where there are many waves (8192^3 0.980 -> 0.987 of cuBLASLt,
// 4096x28672x4096 0.953 -> 0.963) and lost where there are few (4096^3, 3 waves: 0.996 -> 0.900;
// 4000x3000x2000, 2 waves: 0.999 -> 0.733): the partials and reduce_tail cost about a quarter of
// a wave. Gated (call F): 0.995 / 0.987 / 0.998 / 0.875 against 0.994 / 0.973 / 0.998 / 0.878
// (bench/gemm_dev/variants.sh `tma_nostreamk`, `llm_nostreamk`).
constexpr bool kStreamKTail = true;
constexpr int kStreamKMinWaves = 8;
// Whether the tail tiles several CTAs share are summed inside the GEMM kernel by the last CTA
// whose range touches them (tail_fixup, gemm/sm90_gemm_tail_fixup.cuh) instead of by reduce_tail
// after it: no second kernel, no wait for the whole grid, and the finishing piece's partial is
// never stored. Off until bench/gemm_dev measures it (`tma_tail_fixup`).
constexpr bool kTailFixup = false;
// Whether a CTA takes its tail pieces before its waves of whole tiles instead of after them: the
// pieces' partials (and with kTailFixup their sums) then happen early, and every CTA ends on whole
// tiles. Off until measured (`tma_tail_first`).
constexpr bool kTailFirst = false;
// tail_fixup's CTA that finishes a tile (the last whose range touches it) waits for the others'
// partials: its pieces in descending order reach that tile after they stored theirs.
constexpr TailOrder kTailOrder{kTailFirst, kTailFixup};
// Whether a persistent launch without the tail schedule takes the fewest CTAs that still finish
// its units in as many rounds as one CTA per SM (balanced_ctas): every CTA then takes as many
// units, and the SMs left over idle for the whole kernel instead of its last round (4096^3, 512
// tiles on 132 SMs: 128 CTAs of 4 tiles instead of 116 of 4 and 16 of 3; the same rounds, four
// SMs less drawing power). On the H200 (bench/results/2026-12-07e-session, call 2, two rounds,
// against the expert without it in the same round) 4096^3 1.006-1.007 of cuBLASLt against
// 0.996-0.997, 4000x3000x2000 0.999-1.002 against 0.990-0.993; the shapes it leaves alone (8192^3
// takes the tail schedule, 128x8192x8192 the narrow kernel) within 0.7%; `unbalanced` turns it off.
// Measured and not taken: with the tail schedule off (`tma_nostreamk_balanced`, 8192^3 on 128 CTAs
// of 16 tiles each) 0.969-0.975 against the tail schedule's 0.985-0.989; the same with CTA pairs
// (`tma_cluster2_balanced`) 0.970-0.976.
constexpr bool kBalancedWaves = true;
static_assert(!kStreamKTail || (kPersistent && kClusterM == 1),
              "the tail schedule runs on persistent single-CTA clusters");

// Workspace bytes of the tail schedule `tail`: its partial slots, and with kTailFixup their
// flags after them.
uint64_t tail_workspace_bytes(const TailSchedule& tail) {
  return tail.tail_tiles == 0 ? 0 : tail_bytes(tail) + (kTailFixup ? tail_fixup_bytes(tail) : 0);
}

// tail_fixup's epoch for the next launch: new for each launch (a bijection of the launch count:
// 2^32 - 1 launches before one repeats), never 0, and scattered over 32 bits, so that leftover
// data in a fresh workspace (small integers, say) is unlikely to read as the epoch's flag.
// ptxb_run is called from one host thread (docs/abi.md).
uint32_t next_tail_epoch() {
  static uint32_t launches = 0;
  uint32_t epoch = 0;
  while (epoch == 0) {
    epoch = ++launches * 0x9E3779B1u;  // odd: a bijection modulo 2^32
    epoch ^= epoch >> 16;              // a bijection too
  }
  return epoch;
}

static_assert(!kDoubleBufferedStore || kOwnStaging, "the buffers are the own staging's");
static_assert(!kTmaStoreEpilogue || !kPersistent || kOwnStaging,
              "the staging would race the next unit's loads");
static_assert(!kTmaStoreEpilogue || kOwnStaging || kStages * kStoreBoxCols >= kBlockN,
              "one A stage per box of the staged tile");

// Work unit u: block u % blocks of C (grouped raster over blocks of kClusterM tile rows by one
// tile column) and split u / blocks of K (k-blocks [split * split_kb, (split + 1) * split_kb)).
// The CTA of rank r in its cluster computes the block's tile row r. Cluster c takes units c,
// c + clusters, ... One split writes C; several write fp32 partials (`splits` of them) for
// reduce_splits. With store_by_tma (one split only), map_c maps C for store_tile_tma. With a
// tail schedule (tail.tail_tiles > 0) CTA c takes tail_unit(tail, ..., c, j) for every j, the
// pieces of shared tiles summed by reduce_tail, or with kTailFixup here (`epoch`: tail_fixup's,
// new for every launch and never 0).
__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_tma_ws(const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b,
                     const __grid_constant__ CUtensorMap map_c, bool store_by_tma, __nv_bfloat16* c,
                     float* partials, int M, int N, int K, int split_kb, int splits,
                     const TailSchedule tail, uint32_t epoch) {
  SharedStorage& smem = shared_storage();
  // The split reduction (kSplitPdl) may launch now; it waits for this grid to complete. No-op
  // without a dependent launch.
  if (kSplitPdl && (splits > 1 || (kStreamKTail && !kTailFixup && tail.tail_tiles > 0)))
    griddep_launch_dependents();
  const int warpgroup = warpgroup_index();
  const int rows = ((M + kBlockM - 1) / kBlockM + kClusterM - 1) / kClusterM;  // block rows
  const int tiles_n = (N + kBlockN - 1) / kBlockN;
  const int blocks = rows * tiles_n;
  const int units = blocks * splits;
  const int k_total = (K + kBlockK - 1) / kBlockK;
  const int tail_units = kStreamKTail ? tail_unit_bound(tail) : 0;
  const int cluster = blockIdx.x / kClusterM, clusters = gridDim.x / kClusterM;
  const int rank = kClusterM == 1 ? 0 : static_cast<int>(cluster_ctarank());
  auto tile_of = [&](int u) {  // this CTA's tile of unit u
    const TileCoord block = tile_of_block(u % blocks, rows, tiles_n);
    return TileCoord{(block.m0 / kBlockM * kClusterM + rank) * kBlockM, block.n0};
  };

  if (threadIdx.x == 0) init_barriers(smem);
  if constexpr (kClusterM == 1) {
    __syncthreads();
  } else {
    __syncwarp();    // barrier.cluster is .aligned: the warp converged
    cluster_sync();  // the peer's barriers exist before anything multicasts or arrives there
  }

  uint32_t it = 0;  // k-blocks through the ring so far (produce, consume)
  if (warpgroup == 0) {
    setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      TailUnit t;
      for (int j = 0; tail.tail_tiles > 0 && j < tail_units; ++j) {
        if (!tail_unit(tail, blocks, cluster, j, t, kTailOrder)) continue;
        const TileCoord tile = tile_of_block(t.block, rows, tiles_n);
        produce(smem, &map_a, &map_b, TileWork{tile.m0, tile.n0, tile.n0, t.kb_begin, t.k_blocks},
                it);
      }
      for (int u = cluster; (!kStreamKTail || tail.tail_tiles == 0) && u < units; u += clusters) {
        const TileCoord tile = tile_of(u);
        const int kb_begin = (u / blocks) * split_kb;
        const TileWork work{tile.m0, tile.n0, tile.n0, kb_begin, min(k_total - kb_begin, split_kb)};
        if (kSplitL2Policy && splits > 1)
          produce<kSplitL2Policy>(smem, &map_a, &map_b, work, it, l2_policy_evict_last(),
                                  l2_policy_evict_first());
        else
          produce(smem, &map_a, &map_b, work, it);
      }
      producer_tail(smem, it);
    }
    return;
  }

  setmaxnreg_inc<232>();
  const int consumer = warpgroup - 1;
  // A consumer's half of a whole tile of C (one split, no tail piece).
  auto store_whole = [&](const float(&d)[kBlockN / 2], const TileCoord& tile) {
    if (kTmaStoreEpilogue && store_by_tma)
      store_tile_tma<kBlockN, kOwnStaging ? kStorePassCols : kBlockN, false,
                     kOwnStaging ? kStagingCols / kStorePassCols : 1>(
          d, 1.f,
          kOwnStaging ? smem.staging + consumer * kStagingBytes
                      : reinterpret_cast<uint8_t*>(smem.a[0] + consumer * 64 * kBlockK),
          kOwnStaging ? 64 * kStoreBoxCols * 2 : kATileBytes, &map_c, consumer,
          tile.m0 + consumer * 64, tile.n0);
    else
      store_tile(d, c, tile.m0 + consumer * 64, tile.n0, M, N);
  };
  TailUnit t;
  for (int j = 0; tail.tail_tiles > 0 && j < tail_units; ++j) {
    if (!tail_unit(tail, blocks, cluster, j, t, kTailOrder)) continue;
    const TileCoord tile = tile_of_block(t.block, rows, tiles_n);
    float d[kBlockN / 2];
    consume(smem, consumer, t.k_blocks, d, it, slices_in_last_k_block(t.kb_begin + t.k_blocks, K));
    if (t.slot < 0) {
      store_whole(d, tile);
    } else if (kTailFixup) {  // the tile's last CTA stores it whole
      if (tail_fixup(d, partials, tail, t.block - tail.waves * tail.ctas, cluster, consumer, epoch))
        store_whole(d, tile);
    } else {  // the slot's (kBlockM, kBlockN) fp32 tile, row-major
      store_partial(d, partials + static_cast<int64_t>(t.slot) * kBlockM * kBlockN, consumer * 64,
                    0, kBlockM, kBlockN);
    }
  }
  for (int u = cluster; (!kStreamKTail || tail.tail_tiles == 0) && u < units; u += clusters) {
    const TileCoord tile = tile_of(u);
    const int split = u / blocks;
    const int kb_begin = split * split_kb;
    const int k_blocks = min(k_total - kb_begin, split_kb);
    float d[kBlockN / 2];
    consume(smem, consumer, k_blocks, d, it, slices_in_last_k_block(kb_begin + k_blocks, K));
    if (splits > 1)
      store_partial<kSplitL2Policy>(d, partials + static_cast<int64_t>(split) * M * N,
                                    tile.m0 + consumer * 64, tile.n0, M, N,
                                    kSplitL2Policy ? l2_policy_evict_last() : 0);
    else
      store_whole(d, tile);
  }
  if (kTmaStoreEpilogue && threadIdx.x % 128 == 0)
    bulk_wait_group_read<0>();  // the staging stays until read: before exit
}

// Split-K inside a cluster (kSplitCluster, off here; bench/gemm_dev measures it): the `splits`
// CTAs of a cluster compute the K splits of one output tile (rank = split). Each leaves its fp32
// partial tile in its own shared memory (the stage buffers, free once its k-blocks are consumed);
// after a cluster barrier each sums one slice of the tile's rows over every CTA's partial, in
// split order, through distributed shared memory and writes bf16 C. No partials in global memory
// and no second kernel.
constexpr bool kSplitCluster = false;
constexpr int kMaxClusterSplits = 8;    // the portable cluster size
constexpr int kRedPitch = kBlockN + 8;  // floats per row of a partial tile (+8: fewer conflicts)
static_assert(!kSplitCluster || kClusterM == 1, "split clusters are clusters along K only");
static_assert(kBlockM * kRedPitch * sizeof(float) <=
                  sizeof(SharedStorage::a) + sizeof(SharedStorage::b),
              "a partial tile fits in the stage buffers");

__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_tma_ws_split_cluster(const __grid_constant__ CUtensorMap map_a,
                                   const __grid_constant__ CUtensorMap map_b, __nv_bfloat16* c,
                                   int M, int N, int K, int split_kb, int splits) {
  SharedStorage& smem = shared_storage();
  const int warpgroup = warpgroup_index();
  const int rank = static_cast<int>(cluster_ctarank());  // the split
  const TileCoord tile =
      tile_of_block(blockIdx.x / splits, (M + kBlockM - 1) / kBlockM, (N + kBlockN - 1) / kBlockN);
  const int kb_begin = rank * split_kb;
  const int k_blocks = min((K + kBlockK - 1) / kBlockK - kb_begin, split_kb);
  float* partial = reinterpret_cast<float*>(&smem.a[0][0]);  // (kBlockM, kRedPitch)

  if (threadIdx.x == 0) init_barriers(smem);
  __syncthreads();

  uint32_t it = 0;
  if (warpgroup == 0) {
    setmaxnreg_dec<40>();
    if (threadIdx.x == 0)
      produce(smem, &map_a, &map_b, TileWork{tile.m0, tile.n0, tile.n0, kb_begin, k_blocks}, it);
  } else {
    setmaxnreg_inc<232>();
    const int consumer = warpgroup - 1;
    float d[kBlockN / 2];
    consume(smem, consumer, k_blocks, d, it, slices_in_last_k_block(kb_begin + k_blocks, K));
    // Both consumer warpgroups are done with the stage buffers before either overwrites them.
    named_barrier_sync_immediate<1, 128 * kConsumers>();
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int row = consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int i = 0; i < kBlockN / 8; ++i) {
      const int col = i * 8 + (lane % 4) * 2;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        float* dst = partial + (row + half * 8) * kRedPitch + col;
        dst[0] = d[i * 4 + half * 2];
        dst[1] = d[i * 4 + half * 2 + 1];
      }
    }
  }
  __syncwarp();
  cluster_sync();  // every CTA's partial tile written

  const int per = (kBlockM + splits - 1) / splits;  // rows summed by each CTA
  const int row0 = rank * per, rows = max(0, min(per, kBlockM - row0));
  if (warpgroup > 0) {
    for (int i = threadIdx.x - 128; i < rows * (kBlockN / 2); i += 128 * kConsumers) {
      const int r = row0 + i / (kBlockN / 2), col = 2 * (i % (kBlockN / 2));
      float x = 0.f, y = 0.f;
      for (int q = 0; q < splits; ++q) {
        float px, py;
        ld_shared_cluster_f32x2(partial + r * kRedPitch + col, static_cast<uint32_t>(q), px, py);
        x += px;
        y += py;
      }
      const int gr = tile.m0 + r, gc = tile.n0 + col;
      if (gr < M && gc < N) store_bf16_pair(c, gr, gc, N, x, y);
    }
  }
  __syncwarp();
  cluster_sync();  // no CTA leaves while a peer still reads its shared memory
}

// Resident clusters of each size 1..kMaxClusterSplits (index = size; kSplitCluster only), read by
// ptxb_plan: on the H200 66 clusters of 2 fit but only 30 of 4, so 32 tiles split 4 ways would
// run their last 2 clusters as a second wave (bench/probes/cluster_occupancy_probe.cu).
int g_max_clusters[kMaxClusterSplits + 1] = {};

// How the work is cut (few_tile_splits: several splits only when the output tiles fill less than
// half the SMs and every split keeps kMinKBlocksPerSplit k-blocks); split clusters also all
// resident at once.
SplitK split_k(int64_t M, int64_t N, int64_t K, int sms) {
  const int64_t tiles = ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN);
  const int k_blocks = static_cast<int>((K + kBlockK - 1) / kBlockK);
  int splits = few_tile_splits(tiles, k_blocks, sms, kMinKBlocksPerSplit);
  if (kSplitCluster) {
    splits = std::min(splits, kMaxClusterSplits);
    while (splits > 1 && tiles > g_max_clusters[splits]) --splits;
  }
  return cut_k(k_blocks, splits);
}

int g_sms = 0;  // the device's SM count, read by ptxb_plan

// The fewest CTAs (at most `most`) that take `units` units in as many rounds as `most` CTAs do.
int balanced_ctas(int units, int most) {
  if (units <= 0 || most <= 0) return most;
  const int rounds = (units + most - 1) / most;
  return (units + rounds - 1) / rounds;
}

// The tail schedule of an (M, N, K) problem cut as `split` (kStreamKTail; no tail with splits or
// fewer than kStreamKMinWaves full waves).
TailSchedule plan_tail(int64_t M, int64_t N, int64_t K, const SplitK& split) {
  if (!kStreamKTail || split.splits > 1) return {};
  return ring_tail_schedule(M, N, K, g_sms, kStreamKMinWaves);
}

// A launch of `blocks` CTAs of the kernels here (a multiple of `cluster`) in clusters of
// `cluster` CTAs along x; `cluster_dims` holds the attribute the config points to.
cudaLaunchConfig_t cluster_config(int blocks, int cluster, cudaStream_t stream,
                                  cudaLaunchAttribute& cluster_dims) {
  cluster_dims = {};
  cluster_dims.id = cudaLaunchAttributeClusterDimension;
  cluster_dims.val.clusterDim = {static_cast<unsigned>(cluster), 1, 1};
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kSharedBytes;
  config.stream = stream;
  config.attrs = &cluster_dims;
  config.numAttrs = 1;
  return config;
}

// `kernel` on `blocks` CTAs (a multiple of `cluster`) in clusters of `cluster` CTAs along x.
template <typename... Params, typename... Args>
cudaError_t launch_in_clusters(void (*kernel)(Params...), int blocks, int cluster,
                               cudaStream_t stream, Args... args) {
  cudaLaunchAttribute cluster_dims;
  const cudaLaunchConfig_t config = cluster_config(blocks, cluster, stream, cluster_dims);
  return cudaLaunchKernelEx(&config, kernel, args...);
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaFuncSetAttribute(gemm_bf16_tma_ws, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kSharedBytes)) != cudaSuccess ||
      cudaFuncSetAttribute(gemm_bf16_tma_ws_split_cluster,
                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kSharedBytes)) != cudaSuccess ||
      cudaFuncSetAttribute(gemm_bf16_narrow, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kNarrowSharedBytes)) != cudaSuccess)
    return kLaunchFailed;
  *workspace_bytes = 0;
  if (kSplitCluster) {  // the partials stay in shared memory
    for (int size = 1; size <= kMaxClusterSplits; ++size) {
      cudaLaunchAttribute cluster_dims;
      const cudaLaunchConfig_t config = cluster_config(size * g_sms, size, nullptr, cluster_dims);
      if (cudaOccupancyMaxActiveClusters(&g_max_clusters[size], gemm_bf16_tma_ws_split_cluster,
                                         &config) != cudaSuccess)
        return kLaunchFailed;
    }
    return PTXB_OK;
  }
  if (problem->num_inputs == 2 && problem->inputs[0].rank == 2 && problem->inputs[1].rank == 2) {
    const int64_t M = problem->inputs[0].shape[0], K = problem->inputs[0].shape[1],
                  N = problem->inputs[1].shape[0];
    const SplitK split = split_k(M, N, K, g_sms);
    *workspace_bytes = plan_narrow(M, N, K, g_sms).use
                           ? 0
                           : std::max(split_partial_bytes(split, M, N),
                                      tail_workspace_bytes(plan_tail(M, N, K, split)));
  }
  return PTXB_OK;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const std::optional<GemmDims> dims = gemm_dims(*args->problem);
  if (!dims) return kBadProblem;
  const auto [M, N, K] = *dims;

  const auto stream = static_cast<cudaStream_t>(args->stream);
  auto* c = static_cast<__nv_bfloat16*>(args->outputs[0]);
  auto* partials = static_cast<float*>(args->workspace);
  if (const NarrowPlan narrow = plan_narrow(M, N, K, g_sms); narrow.use && !kSplitCluster)
    return run_narrow(narrow, args->inputs[0], args->inputs[1], c, M, N, K, stream);
  CUtensorMap map_a, map_b, map_c = {};
  if (!encode_k_major(&map_a, args->inputs[0], M, K, kBlockM) ||
      !encode_k_major(&map_b, args->inputs[1], N, K, kBlockN / kClusterM))
    return kNoTensorMap;

  const SplitK split = split_k(M, N, K, g_sms);
  // NOTE: an N without a 16-byte row pitch keeps the stores from registers.
  const bool store_by_tma =
      kTmaStoreEpilogue && split.splits == 1 && encode_c_store(&map_c, args->outputs[0], M, N);
  if (!kSplitCluster && args->workspace_bytes < split_partial_bytes(split, M, N))
    return kBadProblem;
  const TailSchedule tail = plan_tail(M, N, K, split);
  if (args->workspace_bytes < tail_workspace_bytes(tail)) return kBadProblem;
  if (kSplitCluster && split.splits > 1) {
    const int tiles =
        static_cast<int>(((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN));
    return launch_in_clusters(gemm_bf16_tma_ws_split_cluster, tiles * split.splits, split.splits,
                              stream, map_a, map_b, c, static_cast<int>(M), static_cast<int>(N),
                              static_cast<int>(K), split.split_kb, split.splits) == cudaSuccess
               ? PTXB_OK
               : kLaunchFailed;
  }
  const int rows = static_cast<int>(((M + kBlockM - 1) / kBlockM + kClusterM - 1) / kClusterM);
  const int units = rows * static_cast<int>((N + kBlockN - 1) / kBlockN) * split.splits;
  int clusters = kPersistent ? std::min(units, g_sms / kClusterM) : units;
  if (kBalancedWaves && kPersistent && tail.tail_tiles == 0)
    clusters = balanced_ctas(units, clusters);
  const uint32_t epoch = kTailFixup && tail.tail_tiles > 0 ? next_tail_epoch() : 0;
  if constexpr (kClusterM == 1) {
    gemm_bf16_tma_ws<<<clusters, kThreads, kSharedBytes, stream>>>(
        map_a, map_b, map_c, store_by_tma, c, partials, static_cast<int>(M), static_cast<int>(N),
        static_cast<int>(K), split.split_kb, split.splits, tail, epoch);
  } else if (launch_in_clusters(gemm_bf16_tma_ws, clusters * kClusterM, kClusterM, stream, map_a,
                                map_b, map_c, store_by_tma, c, partials, static_cast<int>(M),
                                static_cast<int>(N), static_cast<int>(K), split.split_kb,
                                split.splits, tail, epoch) != cudaSuccess) {
    return kLaunchFailed;
  }
  if (sum_splits(split, partials, c, M, N, g_sms, kSplitPdl, stream) != cudaSuccess)
    return kLaunchFailed;
  if (tail.tail_tiles > 0 && !kTailFixup) {
    if (launch_dependent(reduce_tail, static_cast<int64_t>(tail.tail_tiles) * kBlockM * kBlockN / 4,
                         g_sms, kSplitPdl, stream, static_cast<const float*>(partials), c, tail,
                         static_cast<int>(M), static_cast<int>(N)) != cudaSuccess)
      return kLaunchFailed;
  }
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}
