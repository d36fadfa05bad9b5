// Layout changes of the variable-length attention reference (worker/attention_varlen_device.cpp
// declares the launchers): one sequence of a packed THD tensor gathered into the [heads, len, D]
// layout of the dense attention reference, and that reference's fp32 output scattered back.
// NOTE: a CUDA file of its own because the task headers need C++20, which nvcc is not given.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda/cuda_check.hpp"

namespace ptxb {
namespace {

// dst[h][t][c] = src[tok0 + t][h][c] for t < len (elements of T, any trivially copyable type).
template <class T>
__global__ void thd_to_hsd_kernel(const T* src, T* dst, int64_t tok0, int64_t len, int64_t heads,
                                  int64_t dim) {
  const int64_t count = heads * len * dim;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = i % dim, t = (i / dim) % len, h = i / (dim * len);
    dst[i] = src[((tok0 + t) * heads + h) * dim + c];
  }
}

// dst[tok0 + t][h][c] = src[h][t][c] for t < len.
__global__ void hsd_to_thd_kernel(const float* src, float* dst, int64_t tok0, int64_t len,
                                  int64_t heads, int64_t dim) {
  const int64_t count = heads * len * dim;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = i % dim, t = (i / dim) % len, h = i / (dim * len);
    dst[((tok0 + t) * heads + h) * dim + c] = src[i];
  }
}

unsigned blocks_for(int64_t count) {
  return static_cast<unsigned>(std::min<int64_t>((count + 255) / 256, 4096));
}

}  // namespace

void gather_sequence_bf16(const void* thd, void* hsd, int64_t tok0, int64_t len, int64_t heads,
                          int64_t dim, cudaStream_t stream) {
  thd_to_hsd_kernel<<<blocks_for(heads * len * dim), 256, 0, stream>>>(
      static_cast<const uint16_t*>(thd), static_cast<uint16_t*>(hsd), tok0, len, heads, dim);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

void scatter_sequence_f32(const float* hsd, float* thd, int64_t tok0, int64_t len, int64_t heads,
                          int64_t dim, cudaStream_t stream) {
  hsd_to_thd_kernel<<<blocks_for(heads * len * dim), 256, 0, stream>>>(hsd, thd, tok0, len, heads,
                                                                       dim);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

}  // namespace ptxb
