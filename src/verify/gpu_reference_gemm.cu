// The independent GEMM reference: ref = alpha * A * B^T in fp64 through cuBLASLt
// (cuda/fp64_gemm.hpp) on operands widened exactly from their type, rounded once to fp32. The bf16
// baseline runs through cuBLASLt too, but in another type with other kernels; the fp64 CPU product
// checks this one in tests/gpu.
#include <cuda_fp8.h>

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/fp64_gemm.hpp"
#include "verify/fp64_buffers.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

constexpr int64_t kScaleBlock = 128;

// dst[r][k] = src[r][k] * scale(r, k) for a (rows, K) E4M3 matrix; the scale of A is per row and
// 128 of K (scale[(k / 128) * rows + r]), that of B per 128 x 128 block (scale[(r / 128) *
// k_blocks + k / 128]).
__global__ void widen_block_scaled(const __nv_fp8_e4m3* src, const float* scale, double* dst,
                                   int64_t rows, int64_t K, bool row_scales) {
  const int64_t k_blocks = (K + kScaleBlock - 1) / kScaleBlock;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < rows * K;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = i / K, kb = (i % K) / kScaleBlock;
    const float s = row_scales ? scale[kb * rows + r] : scale[(r / kScaleBlock) * k_blocks + kb];
    dst[i] = static_cast<double>(static_cast<float>(src[i])) * static_cast<double>(s);
  }
}

DeviceBuffer widened_block_scaled(const void* src, const float* scale, int64_t rows, int64_t K,
                                  bool row_scales, cudaStream_t stream) {
  DeviceBuffer out(static_cast<size_t>(rows * K) * sizeof(double));
  const auto blocks = static_cast<unsigned>(std::clamp<int64_t>((rows * K + 255) / 256, 1, 65535));
  widen_block_scaled<<<blocks, 256, 0, stream>>>(static_cast<const __nv_fp8_e4m3*>(src), scale,
                                                 out.as<double>(), rows, K, row_scales);
  PTXB_CHECK_CUDA(cudaGetLastError());
  return out;
}

}  // namespace

void reference_gemm(const void* a, DType a_type, const void* b, DType b_type, double alpha,
                    float* ref, int64_t M, int64_t N, int64_t K, cudaStream_t stream) {
  const DeviceBuffer a64 = widened(a, a_type, M * K, stream),
                     b64 = widened(b, b_type, N * K, stream);
  DeviceBuffer c64(static_cast<size_t>(M * N) * sizeof(double));
  Fp64Gemm gemm;
  gemm.run(false, true, M, N, K, alpha, a64.as<double>(), K, b64.as<double>(), K, 0.0,
           c64.as<double>(), N, stream);
  narrow_to_f32(c64.as<double>(), ref, M * N, stream);
  // NOTE: the buffers are freed on return; cudaFree waits for the work enqueued above.
}

void reference_gemm_bf16(const void* a, const void* b, float* ref, int64_t M, int64_t N, int64_t K,
                         cudaStream_t stream) {
  reference_gemm(a, DType::kBF16, b, DType::kBF16, 1.0, ref, M, N, K, stream);
}

void reference_gemm_blockwise(const void* a, const void* b, const float* scale_a,
                              const float* scale_b, float* ref, int64_t M, int64_t N, int64_t K,
                              cudaStream_t stream) {
  const DeviceBuffer a64 = widened_block_scaled(a, scale_a, M, K, true, stream),
                     b64 = widened_block_scaled(b, scale_b, N, K, false, stream);
  DeviceBuffer c64(static_cast<size_t>(M * N) * sizeof(double));
  Fp64Gemm gemm;
  gemm.run(false, true, M, N, K, 1.0, a64.as<double>(), K, b64.as<double>(), K, 0.0,
           c64.as<double>(), N, stream);
  narrow_to_f32(c64.as<double>(), ref, M * N, stream);
}

}  // namespace ptxb
