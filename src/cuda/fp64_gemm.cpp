#include "cuda/fp64_gemm.hpp"

#include "cuda/cuda_check.hpp"

namespace ptxb {
namespace {

constexpr size_t kWorkspaceBytes = size_t{4} << 20;

// Owns one cuBLASLt matrix layout.
class Layout {
 public:
  Layout(int64_t rows, int64_t cols, int64_t ld) {
    PTXB_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&layout_, CUDA_R_64F, static_cast<uint64_t>(rows),
                                                 static_cast<uint64_t>(cols), ld));
  }
  ~Layout() { cublasLtMatrixLayoutDestroy(layout_); }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;
  cublasLtMatrixLayout_t get() const { return layout_; }

 private:
  cublasLtMatrixLayout_t layout_ = nullptr;
};

}  // namespace

Fp64Gemm::Fp64Gemm() : workspace_(kWorkspaceBytes) { PTXB_CHECK_CUBLAS(cublasLtCreate(&handle_)); }

Fp64Gemm::~Fp64Gemm() { cublasLtDestroy(handle_); }

void Fp64Gemm::run(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
                   const double* A, int64_t lda, const double* B, int64_t ldb, double beta,
                   double* C, int64_t ldc, cudaStream_t stream) {
  // Row-major C (M x N) is column-major C^T (N x M) = op(B)^T op(A)^T: cuBLASLt's A is our B and
  // its B our A, each with its own transpose flag, read as the column-major view of its storage.
  cublasLtMatmulDesc_t desc = nullptr;
  PTXB_CHECK_CUBLAS(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_64F, CUDA_R_64F));
  const cublasOperation_t op_first = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_second = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasStatus_t status =
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_first, sizeof op_first);
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_second,
                                            sizeof op_second);
  if (status == CUBLAS_STATUS_SUCCESS) {
    const Layout first(trans_b ? K : N, trans_b ? N : K, ldb);
    const Layout second(trans_a ? M : K, trans_a ? K : M, lda);
    const Layout out(N, M, ldc);
    // NOTE: no algorithm given: cuBLASLt runs its own heuristic query for each call.
    status =
        cublasLtMatmul(handle_, desc, &alpha, B, first.get(), A, second.get(), &beta, C, out.get(),
                       C, out.get(), nullptr, workspace_.data(), workspace_.bytes(), stream);
  }
  cublasLtMatmulDescDestroy(desc);
  PTXB_CHECK_CUBLAS(status);
}

}  // namespace ptxb
