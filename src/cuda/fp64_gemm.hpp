// Row-major fp64 matrix products for the references, through cuBLASLt with CUBLAS_COMPUTE_64F
// (fp64 tensor cores on Hopper). Operands are widened from the inputs exactly, so the products
// carry only fp64 rounding. Independent of every baseline: those run in bf16/fp8 or through cuDNN.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/device.hpp"

namespace ptxb {

class Fp64Gemm {
 public:
  Fp64Gemm();
  ~Fp64Gemm();
  Fp64Gemm(const Fp64Gemm&) = delete;
  Fp64Gemm& operator=(const Fp64Gemm&) = delete;

  /// C = alpha * op(A) * op(B) + beta * C, all row-major: op(A) is M x K (A stored M x K, or K x M
  /// with `trans_a`), op(B) is K x N (B stored K x N, or N x K with `trans_b`), C is M x N; `lda`,
  /// `ldb`, `ldc` are the stored row lengths. Enqueued on `stream`.
  void run(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
           const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
           int64_t ldc, cudaStream_t stream);

 private:
  cublasLtHandle_t handle_ = nullptr;
  DeviceBuffer workspace_;
};

}  // namespace ptxb
