// The independent GEMM reference: ref = alpha * A * B^T in fp64 through cuBLASLt
// (cuda/fp64_gemm.hpp) on operands widened exactly from their type, rounded once to fp32. The bf16
// baseline runs through cuBLASLt too, but in another type with other kernels; the fp64 CPU product
// checks this one in tests/gpu.
#include "cuda/fp64_gemm.hpp"
#include "verify/fp64_buffers.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {

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

}  // namespace ptxb
