// The epilogue of the GEMM + bias + GELU family's fp32 reference (worker/gemm_bias_gelu_device.cpp
// declares the launcher): GELU in its tanh form through tanhf, not an approximation of tanh.
// NOTE: a CUDA file of its own because the task headers need C++20, which nvcc is not given.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/cuda_check.hpp"

namespace ptxb {
namespace {

// c[m][n] = gelu(c[m][n] + bias[n]) over the (M, N) row-major fp32 reference.
__global__ void add_bias_gelu_kernel(float* c, const __nv_bfloat16* bias, int64_t M, int64_t N) {
  const int64_t count = M * N;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    const float x = c[i] + __bfloat162float(bias[i % N]);
    c[i] = 0.5f * x * (1.f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  }
}

}  // namespace

void add_bias_gelu(float* c, const void* bias_bf16, int64_t M, int64_t N, cudaStream_t stream) {
  add_bias_gelu_kernel<<<1024, 256, 0, stream>>>(c, static_cast<const __nv_bfloat16*>(bias_bf16), M,
                                                 N);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

}  // namespace ptxb
