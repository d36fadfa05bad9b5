// The TMA producer of the warp-specialized wgmma bf16 GEMM of the expert solutions (C = A * B^T,
// bf16 in, fp32 accumulation, bf16 out, row-major, B K-major): one thread streams the k-blocks
// of A and B into the ring of gemm/sm90_gemm_bf16_ws_ring.cuh by TMA, and the host encodes the
// tensor maps. The plain GEMM (gemm/sm90_gemm_bf16_tma_ws_gemm.cuh) and the grouped one build
// their kernels from these pieces. Experts hold a copy (scripts/amalgamate.py); their header
// comments describe the design.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cstdint>

#include "gemm/sm90_gemm_bf16_ws_ring.cuh"
#include "gemm/sm90_tma_store_tile.cuh"
#include "ptx/cluster.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/tensor_map.cuh"
#include "ptx/tma.cuh"

namespace {

constexpr uint32_t kATileBytes = kBlockM * kBlockK * 2;  // the bytes a stage's A box brings
constexpr uint32_t kBTileBytes = kBlockN * kBlockK * 2;

// The producer thread: streams the tile's (kBlockM, kBlockK) A and (kBlockN, kBlockK) B k-blocks
// through the ring. `it` counts the k-blocks this CTA put through the ring before (the earlier
// tiles of a CTA that loops over tiles; 0 for the first) and is advanced past this tile's.
// kHinted (one CTA per cluster): A's boxes under L2 policy `policy_a`, B's under `policy_b`.
template <bool kHinted = false>
__device__ __forceinline__ void produce(SharedStorage& smem, const CUtensorMap* map_a,
                                        const CUtensorMap* map_b, const TileWork& w, uint32_t& it,
                                        uint64_t policy_a = 0, uint64_t policy_b = 0) {
  static_assert(!kHinted || kClusterM == 1, "L2 policies on the single-CTA loads only");
  prefetch_map(map_a);
  prefetch_map(map_b);
  for (int kb = 0; kb < w.k_blocks; ++kb, ++it) {
    const uint32_t s = it % kStages;
    // NOTE: a fresh barrier counts as having completed the phase before phase 0, so the first
    // pass over the ring (parity 1) does not wait.
    mbar_wait(&smem.empty[s], ((it / kStages) & 1) ^ 1);
    mbar_arrive_expect_tx(&smem.full[s], kATileBytes + kBTileBytes);
    const int k0 = (w.kb_begin + kb) * kBlockK;
    if constexpr (kHinted) {
      tma_load_2d_hint(smem.a[s], map_a, &smem.full[s], k0, w.m0, policy_a);
      tma_load_2d_hint(smem.b[s], map_b, &smem.full[s], k0, w.b_row0, policy_b);
      continue;
    }
    tma_load_2d(smem.a[s], map_a, &smem.full[s], k0, w.m0);
    if constexpr (kClusterM == 1) {
      tma_load_2d(smem.b[s], map_b, &smem.full[s], k0, w.b_row0);
    } else {  // this CTA's half of the B tile into both CTAs (map_b's box: kBlockN / 2 rows)
      const uint32_t rank = cluster_ctarank();
      constexpr int kHalf = kBlockN / kClusterM;
      tma_load_2d_multicast(smem.b[s] + rank * kHalf * kBlockK, map_b, &smem.full[s], k0,
                            w.b_row0 + static_cast<int>(rank) * kHalf, (1u << kClusterM) - 1);
    }
  }
}

// The producer thread, after its last tile in a cluster of 2: waits until the consumers of both
// CTAs released every stage, so that no peer arrives on this CTA's barriers after it exits.
[[maybe_unused]] __device__ __forceinline__ void producer_tail(SharedStorage& smem, uint32_t it) {
  if constexpr (kClusterM > 1)
    for (int i = 0; i < kStages; ++i, ++it)
      mbar_wait(&smem.empty[it % kStages], ((it / kStages) & 1) ^ 1);
}

// A row-major (rows, k) bf16 matrix read in (box_rows, kBlockK) boxes with the 128-byte swizzle.
bool encode_k_major(CUtensorMap* map, const void* ptr, int64_t rows, int64_t k, uint32_t box_rows) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(k) * 2};
  const cuuint32_t box[2] = {kBlockK, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(ptr), dims, strides,
                box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace
