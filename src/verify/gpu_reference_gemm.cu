// The independent GEMM reference: a plain tiled SIMT kernel with fp32 accumulation.
// Kept deliberately simple (no tensor cores, no library) so that it is obviously correct.
#include <cuda_bf16.h>

#include "cuda/cuda_check.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

constexpr int kTile = 64;  // output tile (kTile, kTile) per block
constexpr int kStep = 16;  // K slice per shared-memory stage
constexpr int kThreadsSide = 16;
constexpr int kPerThread = kTile / kThreadsSide;  // 4x4 outputs per thread

__global__ void reference_gemm_kernel(const __nv_bfloat16* __restrict__ a,
                                      const __nv_bfloat16* __restrict__ b, float* __restrict__ ref,
                                      int64_t M, int64_t N, int64_t K) {
  __shared__ float a_s[kStep][kTile + 1];  // (kStep, kTile): a_s[k][m]
  __shared__ float b_s[kStep][kTile + 1];  // (kStep, kTile): b_s[k][n]
  const int64_t m0 = int64_t(blockIdx.y) * kTile;
  const int64_t n0 = int64_t(blockIdx.x) * kTile;
  const int tx = threadIdx.x % kThreadsSide;
  const int ty = threadIdx.x / kThreadsSide;
  float acc[kPerThread][kPerThread] = {};

  for (int64_t k0 = 0; k0 < K; k0 += kStep) {
    for (int i = threadIdx.x; i < kTile * kStep; i += blockDim.x) {
      const int r = i / kStep, k = i % kStep;
      const bool k_ok = k0 + k < K;
      a_s[k][r] = (m0 + r < M && k_ok) ? __bfloat162float(a[(m0 + r) * K + k0 + k]) : 0.f;
      b_s[k][r] = (n0 + r < N && k_ok) ? __bfloat162float(b[(n0 + r) * K + k0 + k]) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kStep; ++k)
#pragma unroll
      for (int i = 0; i < kPerThread; ++i)
#pragma unroll
        for (int j = 0; j < kPerThread; ++j)
          acc[i][j] = fmaf(a_s[k][ty + i * kThreadsSide], b_s[k][tx + j * kThreadsSide], acc[i][j]);
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kPerThread; ++i)
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const int64_t m = m0 + ty + i * kThreadsSide, n = n0 + tx + j * kThreadsSide;
      if (m < M && n < N) ref[m * N + n] = acc[i][j];
    }
}

}  // namespace

void reference_gemm_bf16(const void* a, const void* b, float* ref, int64_t M, int64_t N, int64_t K,
                         cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((N + kTile - 1) / kTile),
                  static_cast<unsigned>((M + kTile - 1) / kTile));
  reference_gemm_kernel<<<grid, kThreadsSide * kThreadsSide, 0, stream>>>(
      static_cast<const __nv_bfloat16*>(a), static_cast<const __nv_bfloat16*>(b), ref, M, N, K);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

}  // namespace ptxb
