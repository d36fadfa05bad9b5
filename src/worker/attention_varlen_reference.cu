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

// Between one sequence of a packed [T, heads, D] tensor (rows tok0 .. tok0 + len) and the
// [heads, len, D] layout: to_packed false gathers hsd[h][t][c] = thd[tok0 + t][h][c], true
// scatters back.
template <class T>
__global__ void relayout_kernel(const T* src, T* dst, int64_t tok0, int64_t len, int64_t heads,
                                int64_t dim, bool to_packed) {
  const int64_t count = heads * len * dim;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = i % dim, t = (i / dim) % len, h = i / (dim * len);
    const int64_t packed = ((tok0 + t) * heads + h) * dim + c;
    if (to_packed)
      dst[packed] = src[i];
    else
      dst[i] = src[packed];
  }
}

unsigned blocks_for(int64_t count) {
  return static_cast<unsigned>(std::min<int64_t>((count + 255) / 256, 4096));
}

}  // namespace

void gather_sequence_bf16(const void* thd, void* hsd, int64_t tok0, int64_t len, int64_t heads,
                          int64_t dim, cudaStream_t stream) {
  relayout_kernel<<<blocks_for(heads * len * dim), 256, 0, stream>>>(
      static_cast<const uint16_t*>(thd), static_cast<uint16_t*>(hsd), tok0, len, heads, dim, false);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

void scatter_sequence_f32(const float* hsd, float* thd, int64_t tok0, int64_t len, int64_t heads,
                          int64_t dim, cudaStream_t stream) {
  relayout_kernel<<<blocks_for(heads * len * dim), 256, 0, stream>>>(hsd, thd, tok0, len, heads,
                                                                     dim, true);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

}  // namespace ptxb
