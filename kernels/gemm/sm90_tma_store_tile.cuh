// The TMA-store epilogue of the GEMM experts: a consumer warpgroup's (64, kTileCols) fp32
// accumulator tile (wgmma's D fragment: row warp*16 + lane/4 (+8), columns 8i + 2(lane%4) (+1)),
// optionally times a scale, rounded to bf16, as kTileCols / 64 boxes of 64 rows by 64 columns
// (8 KB, 128-byte swizzle: the writes hit 32 distinct banks per warp), staged in shared memory
// only this consumer warpgroup touches and stored through `map_c` (box {64, 64}:
// encode_c_store), which clips rows >= M and columns >= N. The tile goes out in kTileCols / kCols
// passes of kCols columns (a multiple of 64), each through one of kBuffers buffers of the staging
// in turn (kBuffers * kCols columns; box j at staging + j * box_stride, 1024-byte aligned). Before
// a pass writes its buffer, thread 0 of the warpgroup waits until the store that last read it
// has (at most kBuffers - 1 later store groups still reading): with two buffers a pass's writes
// overlap the previous pass's store. The last stores are left reading (bulk_wait_group_read
// before the staging is reused or the CTA exits). Named barrier 2 + consumer.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>

#include <cstdint>
#include <utility>

#include "ptx/barrier.cuh"
#include "ptx/smem.cuh"
#include "ptx/tensor_map.cuh"
#include "ptx/tma.cuh"

namespace {

constexpr int kStoreBoxCols = 64;
// Whether the staging is written by st.shared at 32-bit shared addresses instead of through a
// generic pointer (ST.E with 64-bit addresses: ptxas does not see that the staging is shared).
// With the uniform warpgroup index the generic form made ptxas spill 8 bytes in the block-scaled
// fp8 kernel; this form does not. Measured together with the index and stepped descriptors, not
// apart (H100, kernels alone, one run, bench/results/2026-12-05h-h100-session call 3): block-scaled
// 119.4 / 879.1 us before both, 113.0 / 830.8 with generic stores (the spill), 114.1 / 863.6 with
// these at 4096^3 / 8192^3; variants `*_generic_staging` (bench/gemm_dev/variants.sh) turn it off.
constexpr bool kStagingStoresShared = true;

// One pass: columns [kPass * kCols, (kPass + 1) * kCols) of the tile, through buffer
// kPass % kBuffers.
// NOTE: a template per pass, not a loop over passes: with a loop ptxas kept d in local memory.
template <int kTileCols, int kCols, bool kScaled, int kBuffers, int kPass>
__device__ __forceinline__ void store_pass_tma(const float (&d)[kTileCols / 2], float scale,
                                               uint8_t* staging_base, uint32_t box_stride,
                                               const CUtensorMap* map_c, int consumer, int row0,
                                               int n0) {
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const bool leader = threadIdx.x % 128 == 0;
  uint8_t* staging = staging_base + (kPass % kBuffers) * (kCols / kStoreBoxCols) * box_stride;
  if (leader) bulk_wait_group_read<kBuffers - 1>();
  named_barrier_sync<128>(2 + consumer);
#pragma unroll
  for (int c = 0; c < kCols / 8; ++c) {
    const int i = kPass * kCols / 8 + c;  // the accumulator's columns 8 i .. 8 i + 7
    uint8_t* box = staging + (c / 8) * box_stride;
    const int chunk = c % 8;  // 16-byte chunk of the box row
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = warp * 16 + lane / 4 + half * 8;
      const uint32_t offset = r * 128 + ((chunk ^ (r % 8)) * 16) + (lane % 4) * 4;
      float v0 = d[i * 4 + half * 2], v1 = d[i * 4 + half * 2 + 1];
      if constexpr (kScaled) v0 *= scale, v1 *= scale;
      const __nv_bfloat162 pair = __floats2bfloat162_rn(v0, v1);
      if constexpr (kStagingStoresShared)
        st_shared_b32(smem_addr(box) + offset, *reinterpret_cast<const uint32_t*>(&pair));
      else
        *reinterpret_cast<__nv_bfloat162*>(box + offset) = pair;
    }
  }
  fence_proxy_async_shared();
  named_barrier_sync<128>(2 + consumer);
  if (leader) {
#pragma unroll
    for (int j = 0; j < kCols / kStoreBoxCols; ++j)
      tma_store_2d(map_c, staging + j * box_stride, n0 + kPass * kCols + j * kStoreBoxCols, row0);
    bulk_commit_group();
  }
}

template <int kTileCols, int kCols, bool kScaled, int kBuffers, int... kPasses>
__device__ __forceinline__ void store_passes_tma(const float (&d)[kTileCols / 2], float scale,
                                                 uint8_t* staging, uint32_t box_stride,
                                                 const CUtensorMap* map_c, int consumer, int row0,
                                                 int n0, std::integer_sequence<int, kPasses...>) {
  (store_pass_tma<kTileCols, kCols, kScaled, kBuffers, kPasses>(d, scale, staging, box_stride,
                                                                map_c, consumer, row0, n0),
   ...);
}

// The whole tile; `scale` multiplies every value when kScaled (else it is not read).
template <int kTileCols, int kCols, bool kScaled = false, int kBuffers = 1>
__device__ __forceinline__ void store_tile_tma(const float (&d)[kTileCols / 2], float scale,
                                               uint8_t* staging, uint32_t box_stride,
                                               const CUtensorMap* map_c, int consumer, int row0,
                                               int n0) {
  static_assert(kCols % kStoreBoxCols == 0 && kTileCols % kCols == 0, "whole boxes, passes");
  static_assert(kBuffers >= 1 && kBuffers <= 8, "bulk_wait_group_read's immediate");
  store_passes_tma<kTileCols, kCols, kScaled, kBuffers>(
      d, scale, staging, box_stride, map_c, consumer, row0, n0,
      std::make_integer_sequence<int, kTileCols / kCols>{});
}

// A row-major (rows, cols) bf16 matrix written in (64, kStoreBoxCols) boxes with the 128-byte
// swizzle (store_tile_tma). Needs cols % 8 == 0 (16-byte row pitch) and a 16-byte aligned ptr.
bool encode_c_store(CUtensorMap* map, void* ptr, int64_t rows, int64_t cols) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr || cols % 8 != 0 || reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
    return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * 2};
  const cuuint32_t box[2] = {kStoreBoxCols, 64};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, ptr, dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace
