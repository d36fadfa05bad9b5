// The ring of the warp-specialized wgmma bf16 GEMMs of the expert solutions (C = A * B^T, bf16
// in, fp32 accumulation, bf16 out, row-major, B K-major), whatever fills it: the tile's shared
// memory, the full/empty mbarriers, the consumer warpgroups and their epilogues. The TMA producer
// (gemm/sm90_gemm_bf16_tma_ws.cuh) and the cp.async one (gemm/sm90_gemm_bf16_cp_async_ws.cuh)
// fill it. Experts hold a copy (scripts/amalgamate.py); their header comments describe the design.
// Pieces an expert may not use (the grouped one: split-K's constant, the raster, gemm_dims) are
// [[maybe_unused]].
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <cstdint>
#include <optional>

#include "ptx/cluster.cuh"
#include "ptx/l2_policy.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/setmaxnreg.cuh"
#include "ptx/smem.cuh"
#include "ptx/wgmma.cuh"

namespace {

constexpr int kBlockM = 128;
constexpr int kBlockN = 256;
constexpr int kBlockK = 64;  // 64 bf16 = 128 bytes: one row of the 128-byte swizzle pattern
constexpr int kStages = 4;
constexpr int kConsumers = 2;  // consumer warpgroups, each (64, kBlockN)
// CTAs per cluster along M: 1, or 2 for a pair computing tiles (m0, n0) and (m0 + kBlockM, n0).
// Each CTA of a pair loads its own A tile and one half of the shared B tile, multicast into both
// CTAs' shared memory; a stage goes back to the producers when the consumers of both CTAs have
// released it (every consumer warp arrives on both CTAs' `empty` barrier).
constexpr int kClusterM = 1;
static_assert(kClusterM == 1 || kClusterM == 2, "clusters of 1 or 2 CTAs along M");
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kGroupM = 16;  // tile rows visited together for L2 reuse of B
// Split-K for shapes with fewer tiles than half the SMs (few rows): each split at least this many
// k-blocks, partial fp32 tiles in the workspace, summed in a fixed order by a second kernel.
[[maybe_unused]] constexpr int kMinKBlocksPerSplit = 8;

// Whether the TMA-store epilogue (store_tile_tma) stages in shared memory of its own, (64,
// kStagingCols) bf16 per consumer, instead of the A stages: needed by CTAs that loop over tiles
// (the producer refills the stages meanwhile). kStagingCols = kBlockN stages a consumer's tile
// at once (32 KB each: fits with 3 stages, not 4); kBlockN / 2 in two passes (16 KB: fits with 4).
constexpr bool kOwnStaging = true;
constexpr int kStagingCols = kBlockN / 2;
constexpr uint32_t kStagingBytes = 64 * kStagingCols * 2;  // a consumer's staging

struct SharedStorage {
  __nv_bfloat16 a[kStages][kBlockM * kBlockK];  // (kBlockM, kBlockK) per stage, swizzled
  __nv_bfloat16 b[kStages][kBlockN * kBlockK];  // (kBlockN, kBlockK) per stage, swizzled
  // NOTE: 1024-byte aligned as the stages before it; 16 bytes when unused.
  uint8_t staging[kOwnStaging ? kConsumers * kStagingBytes : 16];
  uint64_t full[kStages];
  uint64_t empty[kStages];
};
// NOTE: +1024 so the kernel can align the dynamic shared-memory base to the swizzle atom.
constexpr size_t kSharedBytes = sizeof(SharedStorage) + 1024;
static_assert(kSharedBytes <= 227 * 1024, "sm_90's opt-in shared memory per block");

// wgmma m64n256k16, bf16 x bf16 -> f32, A and B from shared memory (K-major).
// Accumulates into d (128 floats per thread) when scale_d != 0, overwrites it when 0.
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b,
                                                 int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7,"
      "%8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23,"
      "%24, %25, %26, %27, %28, %29, %30, %31,"
      "%32, %33, %34, %35, %36, %37, %38, %39,"
      "%40, %41, %42, %43, %44, %45, %46, %47,"
      "%48, %49, %50, %51, %52, %53, %54, %55,"
      "%56, %57, %58, %59, %60, %61, %62, %63,"
      "%64, %65, %66, %67, %68, %69, %70, %71,"
      "%72, %73, %74, %75, %76, %77, %78, %79,"
      "%80, %81, %82, %83, %84, %85, %86, %87,"
      "%88, %89, %90, %91, %92, %93, %94, %95,"
      "%96, %97, %98, %99, %100, %101, %102, %103,"
      "%104, %105, %106, %107, %108, %109, %110, %111,"
      "%112, %113, %114, %115, %116, %117, %118, %119,"
      "%120, %121, %122, %123, %124, %125, %126, %127},"
      " %128, %129, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

struct TileCoord {
  int m0;
  int n0;
};

// Grouped raster: kGroupM consecutive tile rows share each B column tile while it is in L2.
[[maybe_unused]] __device__ __forceinline__ TileCoord tile_of_block(int block, int tiles_m,
                                                                    int tiles_n) {
  const int per_group = kGroupM * tiles_n;
  const int group = block / per_group;
  const int first_m = group * kGroupM;
  const int rows_in_group = min(tiles_m - first_m, kGroupM);
  const int in_group = block % per_group;
  return {(first_m + in_group % rows_in_group) * kBlockM, (in_group / rows_in_group) * kBlockN};
}

// Writes a consumer's (64, kBlockN) fp32 accumulator tile as fp32 partial sums into `part`
// (row-major (M, N)), masking rows >= M, cols >= N. kHinted: the float2 stores under L2 policy
// `policy` (ptx/l2_policy.cuh).
template <bool kHinted = false>
__device__ __forceinline__ void store_partial(const float (&d)[kBlockN / 2], float* part, int row0,
                                              int n0, int M, int N, uint64_t policy = 0) {
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const int row_a = row0 + warp * 16 + lane / 4;
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row >= M || col >= N) continue;
      float* dst = part + static_cast<int64_t>(row) * N + col;
      if (N % 2 == 0 && col + 1 < N) {  // 8-byte aligned: one float2 store
        if constexpr (kHinted)
          st_global_f32x2_hint(dst, d[i * 4 + half * 2], d[i * 4 + half * 2 + 1], policy);
        else
          *reinterpret_cast<float2*>(dst) =
              make_float2(d[i * 4 + half * 2], d[i * 4 + half * 2 + 1]);
      } else {
        dst[0] = d[i * 4 + half * 2];
        if (col + 1 < N) dst[1] = d[i * 4 + half * 2 + 1];
      }
    }
  }
}

// Writes a consumer's (64, kBlockN) fp32 accumulator tile as bf16, masking rows >= M, cols >= N.
// C[row][col] = v0 and C[row][col + 1] = v1 as bf16 (the second only when col + 1 < N), one bf16x2
// store when N is even (the pair is then 4-byte aligned). The caller checked row < M, col < N.
__device__ __forceinline__ void store_bf16_pair(__nv_bfloat16* c, int row, int col, int N, float v0,
                                                float v1) {
  __nv_bfloat16* dst = c + static_cast<int64_t>(row) * N + col;
  if (N % 2 == 0 && col + 1 < N) {
    *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(v0, v1);
  } else {
    dst[0] = __float2bfloat16_rn(v0);
    if (col + 1 < N) dst[1] = __float2bfloat16_rn(v1);
  }
}

__device__ __forceinline__ void store_tile(const float (&d)[kBlockN / 2], __nv_bfloat16* c,
                                           int row0, int n0, int M, int N) {
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const int row_a = row0 + warp * 16 + lane / 4;
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row >= M || col >= N) continue;
      store_bf16_pair(c, row, col, N, d[i * 4 + half * 2], d[i * 4 + half * 2 + 1]);
    }
  }
}

// The work of one CTA: the (kBlockM, kBlockN) tile of C at rows [m0, m0 + kBlockM) and columns
// [n0, n0 + kBlockN); B's tile starts at row b_row0 of its tensor map (n0, plus a group's first
// weight row in a grouped GEMM); k-blocks [kb_begin, kb_begin + k_blocks).
struct TileWork {
  int m0, n0, b_row0, kb_begin, k_blocks;
};

// Thread 0: one full and one empty mbarrier per stage. A stage is full after `full_arrivals`
// arrivals and the bytes they expect (one producer thread arming it for TMA; every cp.async
// producer thread once its copies landed).
__device__ __forceinline__ void init_barriers(SharedStorage& smem, uint32_t full_arrivals = 1) {
  for (int s = 0; s < kStages; ++s) {
    mbar_init(&smem.full[s], full_arrivals);
    mbar_init(&smem.empty[s], kClusterM * kConsumers * 4);  // lane 0 of every consumer warp
  }
  fence_mbarrier_init();
}

// Lane 0 of a consumer warp: stage `s` read, back to the producer(s) that refill it.
__device__ __forceinline__ void release_stage(SharedStorage& smem, uint32_t s) {
  if constexpr (kClusterM == 1) {
    mbar_arrive(&smem.empty[s]);
  } else {
#pragma unroll
    for (uint32_t cta = 0; cta < kClusterM; ++cta) mbar_arrive_cluster(&smem.empty[s], cta);
  }
}

// Whether consume() forms the descriptors of a k-block's k-slices from the first slice's
// (wgmma_desc_advance by the slice's 32 bytes) instead of from each slice's address (a mask, a
// shift and an or per descriptor, 8 a k-block). The fp8 experts gained 3-5% from it (their
// consumers also promote every k-block; bench/results/2026-12-05g-h100-session, calls 7-8); these
// consumers are lighter: on an H100 (bench/results/2026-12-05h-h100-session, call 1, `ptxbench
// eval`, three rounds) the TMA expert's speedups moved by 1.000-1.002x, the cp.async one's by
// 0.998-1.006x; kept for its fewer instructions (variants `tma_slicedesc_threadwg`,
// `wgmma_slicedesc` turn it off).
constexpr bool kStepDescriptors = true;

// Whether consume() issues only the k-slices of a unit's last k-block that hold data when the
// unit ends at K's end and K is not a multiple of kBlockK (the loads zero-fill the rest, and
// zeros add nothing): K 2000 is 31 k-blocks and one slice, where the whole 32nd k-block costs
// 2.4% more tensor work. Off: no faster on an H100 (4000x3000x2000 0.952 -> 0.945 of cuBLASLt,
// TMA expert; docs/tasks.md, "K's tail").
constexpr bool kPartialLastKBlock = false;
constexpr int kSlicesPerKBlock = kBlockK / 16;

// The k-slices with data in the last k-block of a unit whose k-blocks end at kb_end (exclusive),
// for a K of `K` columns: kSlicesPerKBlock unless that k-block runs past K. Checked on the host
// against the split-K and stream-K units (tests/kernels/gemm_tail_schedule.cu).
__host__ __device__ __forceinline__ int slices_in_last_k_block(int kb_end, int K) {
  const int rest = K - (kb_end - 1) * kBlockK;  // K's columns from the k-block's start on
  return ((rest < kBlockK ? rest : kBlockK) + 15) / 16;
}

// Consumer warpgroup `consumer`: its (64, kBlockN) half of the tile accumulated in d (fp32). `it`
// as in produce(): the consumers' count runs in step with the producer's. Every stage read goes
// back to the producer, the last one too (a CTA that loops over tiles refills it for the next).
// kProxyFence: the stage's bytes were written through the generic proxy by other threads (cp.async
// completing on the barrier), so each consumer thread fences its view to the async proxy before
// wgmma reads them; TMA writes through the async proxy and needs none.
// last_slices: the k-slices of the last k-block to issue (slices_in_last_k_block; used with
// kPartialLastKBlock only).
template <bool kProxyFence = false>
__device__ __forceinline__ void consume(SharedStorage& smem, int consumer, int k_blocks,
                                        float (&d)[kBlockN / 2], uint32_t& it,
                                        int last_slices = kSlicesPerKBlock) {
  const bool lane0 = (threadIdx.x % 32) == 0;
#pragma unroll
  for (int i = 0; i < kBlockN / 2; ++i) d[i] = 0.f;

  // k-block kb through stage it % kStages, its first `slices` k-slices (the whole k-block in the
  // main loop, where `slices` is a constant).
  auto k_block = [&](int kb, int slices) {
    const uint32_t s = it % kStages;
    mbar_wait(&smem.full[s], (it / kStages) & 1);
    if constexpr (kProxyFence) fence_proxy_async_shared();
    const __nv_bfloat16* a_tile = smem.a[s] + consumer * 64 * kBlockK;  // (64, kBlockK)
    const __nv_bfloat16* b_tile = smem.b[s];                            // (kBlockN, kBlockK)
    const uint64_t a_desc = wgmma_desc_sw128(a_tile, 16, 1024);
    const uint64_t b_desc = wgmma_desc_sw128(b_tile, 16, 1024);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < kSlicesPerKBlock; ++k) {
      // NOTE: inside a 128-byte swizzled row, the k-th 16-element slice starts 32*k bytes in;
      // the hardware applies the swizzle to the computed addresses.
      if (k < slices)
        wgmma_m64n256k16(d, wgmma_desc_sw128_slice<kStepDescriptors>(a_tile, a_desc, 32 * k),
                         wgmma_desc_sw128_slice<kStepDescriptors>(b_tile, b_desc, 32 * k), 1);
    }
    wgmma_commit();
    if (kb > 0) {
      wgmma_wait<1>();  // the group that read stage it-1 is done: hand it back to the producer
      if (lane0) release_stage(smem, (it - 1) % kStages);
    }
    ++it;
  };
  const int whole = kPartialLastKBlock ? k_blocks - 1 : k_blocks;
  for (int kb = 0; kb < whole; ++kb) k_block(kb, kSlicesPerKBlock);
  // NOTE: through a warp shuffle, which ptxas can prove warp-uniform: branches around wgmma on a
  // value it cannot prove uniform make it serialize the kernel's wgmma (C7520).
  if (kPartialLastKBlock && k_blocks > 0) k_block(k_blocks - 1, __shfl_sync(~0u, last_slices, 0));
  wgmma_wait<0>();
  if (k_blocks > 0 && lane0) release_stage(smem, (it - 1) % kStages);
#pragma unroll
  for (int i = 0; i < kBlockN / 2; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// The shared memory of a CTA, aligned to 1024 bytes (the 128-byte swizzle's period).
__device__ __forceinline__ SharedStorage& shared_storage() {
  extern __shared__ uint8_t smem_raw[];
  return *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                           ~uintptr_t(1023));
}

// ---- host side ----

bool is_row_major_2d(const ptxb_tensor_desc& t, int64_t rows, int64_t cols) {
  return t.dtype == PTXB_BF16 && t.rank == 2 && t.shape[0] == rows && t.shape[1] == cols &&
         t.strides[0] == cols && t.strides[1] == 1;
}

// The extents of a C = A * B^T problem as ptxb_run accepts it: A (M, K), B (N, K) and C (M, N)
// row-major bf16, K % 8 == 0 (16-byte rows), every extent within int. nullopt otherwise.
struct GemmDims {
  int64_t M, N, K;
};
[[maybe_unused]] std::optional<GemmDims> gemm_dims(const ptxb_problem& p) {
  if (p.num_inputs != 2 || p.num_outputs != 1) return std::nullopt;
  const int64_t M = p.inputs[0].shape[0], K = p.inputs[0].shape[1], N = p.inputs[1].shape[0];
  if (!is_row_major_2d(p.inputs[0], M, K) || !is_row_major_2d(p.inputs[1], N, K) ||
      !is_row_major_2d(p.outputs[0], M, N) || K % 8 != 0 || M > INT32_MAX || N > INT32_MAX ||
      K > INT32_MAX)
    return std::nullopt;
  return GemmDims{M, N, K};
}

// ptxb_run's failures (kNoTensorMap: the TMA kernels' tensor maps could not be encoded).
enum Status : int { kBadProblem = 1, kNoTensorMap = 2, kLaunchFailed = 3 };

}  // namespace