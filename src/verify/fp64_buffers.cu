#include <cuda_bf16.h>

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "verify/fp64_buffers.hpp"

namespace ptxb {
namespace {

constexpr int kThreads = 256;

__global__ void widen_kernel(const __nv_bfloat16* src, double* dst, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x)
    dst[i] = static_cast<double>(__bfloat162float(src[i]));
}

__global__ void narrow_kernel(const double* src, float* dst, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x)
    dst[i] = static_cast<float>(src[i]);
}

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + kThreads - 1) / kThreads, 1, 65535));
}

}  // namespace

DeviceBuffer widened_bf16(const void* src, int64_t count, cudaStream_t stream) {
  DeviceBuffer out(static_cast<size_t>(count) * sizeof(double));
  widen_kernel<<<grid_for(count), kThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(src),
                                                         out.as<double>(), count);
  PTXB_CHECK_CUDA(cudaGetLastError());
  return out;
}

void narrow_to_f32(const double* src, float* dst, int64_t count, cudaStream_t stream) {
  narrow_kernel<<<grid_for(count), kThreads, 0, stream>>>(src, dst, count);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

}  // namespace ptxb
