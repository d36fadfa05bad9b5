#include "baselines/cublaslt_grouped_gemm.hpp"

#include <algorithm>
#include <initializer_list>
#include <vector>

#include "core/dtype.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/host_mirror.hpp"

namespace ptxb {
namespace {

bool is_dense(const ptxb_tensor_desc& t, int32_t dtype, std::initializer_list<int64_t> shape) {
  if (t.dtype != dtype || t.rank != static_cast<int32_t>(shape.size())) return false;
  int d = 0;
  int64_t stride = 1;
  for (int64_t extent : shape)
    if (t.shape[d++] != extent) return false;
  for (int i = t.rank - 1; i >= 0; --i) {
    if (t.strides[i] != stride) return false;
    stride *= t.shape[i];
  }
  return true;
}

// The smallest power of two >= rows (rows >= 1).
int64_t bucket_of(int64_t rows) {
  int64_t b = 1;
  while (b < rows) b *= 2;
  return b;
}

}  // namespace

CublasLtGroupedGemm::CublasLtGroupedGemm(int heuristic_algos, int64_t workspace_bytes)
    : heuristic_algos_(heuristic_algos), workspace_(static_cast<size_t>(workspace_bytes)) {
  PTXB_CHECK_CUBLAS(cublasLtCreate(&handle_));
}

CublasLtGroupedGemm::~CublasLtGroupedGemm() {
  release();
  cublasLtDestroy(handle_);
}

void CublasLtGroupedGemm::release() {
  if (layout_a_) cublasLtMatrixLayoutDestroy(layout_a_);
  if (layout_b_) cublasLtMatrixLayoutDestroy(layout_b_);
  if (layout_c_) cublasLtMatrixLayoutDestroy(layout_c_);
  if (op_) cublasLtMatmulDescDestroy(op_);
  layout_a_ = layout_b_ = layout_c_ = nullptr;
  op_ = nullptr;
  algo_by_rows_.clear();
  planned_ = false;
}

int CublasLtGroupedGemm::plan(const ptxb_problem& problem, uint64_t* workspace_bytes) {
  release();
  *workspace_bytes = 0;
  report_ = nlohmann::json::object();
  if (problem.num_inputs != 3 || problem.num_outputs != 1 || problem.inputs[1].rank != 3) {
    report_["error"] = "grouped baseline: needs A, B [G, N, K], offsets and C";
    return 4;
  }
  const int64_t M = problem.inputs[0].shape[0], K = problem.inputs[0].shape[1];
  const int64_t G = problem.inputs[1].shape[0], N = problem.inputs[1].shape[1];
  const ptxb_tensor_desc& c = problem.outputs[0];
  const bool c_ok = is_dense(c, PTXB_BF16, {M, N}) || is_dense(c, PTXB_F32, {M, N});
  if (!is_dense(problem.inputs[0], PTXB_BF16, {M, K}) ||
      !is_dense(problem.inputs[1], PTXB_BF16, {G, N, K}) ||
      !is_dense(problem.inputs[2], PTXB_I32, {G + 1}) || !c_ok) {
    report_["error"] =
        "grouped baseline: A bf16 [M, K], B bf16 [G, N, K], offsets int32 [G+1], "
        "C bf16 or f32 [M, N], all dense";
    return 5;
  }
  groups_ = G;
  N_ = N;
  K_ = K;
  const cudaDataType_t c_type = c.dtype == PTXB_BF16 ? CUDA_R_16BF : CUDA_R_32F;
  c_element_bytes_ = c.dtype == PTXB_BF16 ? 2 : 4;
  // C_g = A_g * B_g^T in cuBLAS's column-major view: D (N x rows) = B_g^T(op T) * A_g^T.
  PTXB_CHECK_CUBLAS(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t trans = CUBLAS_OP_T, no_trans = CUBLAS_OP_N;
  PTXB_CHECK_CUBLAS(
      cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &trans, sizeof trans));
  PTXB_CHECK_CUBLAS(
      cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &no_trans, sizeof no_trans));
  PTXB_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&layout_b_, CUDA_R_16BF, K, N, K));
  PTXB_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&layout_a_, CUDA_R_16BF, K, 1, K));
  PTXB_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&layout_c_, c_type, N, 1, N));

  cublasLtMatmulPreference_t pref = nullptr;
  PTXB_CHECK_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  uint64_t ws = workspace_.bytes();
  PTXB_CHECK_CUBLAS(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  nlohmann::json buckets = nlohmann::json::array();
  for (int64_t rows = 1; rows < 2 * std::max<int64_t>(M, 1); rows *= 2) {
    const uint64_t cols = static_cast<uint64_t>(rows);
    cublasLtMatrixLayoutSetAttribute(layout_a_, CUBLASLT_MATRIX_LAYOUT_COLS, &cols, sizeof cols);
    cublasLtMatrixLayoutSetAttribute(layout_c_, CUBLASLT_MATRIX_LAYOUT_COLS, &cols, sizeof cols);
    std::vector<cublasLtMatmulHeuristicResult_t> offered(static_cast<size_t>(heuristic_algos_));
    int returned = 0;
    const cublasStatus_t st =
        cublasLtMatmulAlgoGetHeuristic(handle_, op_, layout_b_, layout_a_, layout_c_, layout_c_,
                                       pref, heuristic_algos_, offered.data(), &returned);
    buckets.push_back({{"rows", rows}, {"algorithms_offered", returned}});
    if (st == CUBLAS_STATUS_SUCCESS && returned > 0) algo_by_rows_[rows] = offered[0].algo;
  }
  cublasLtMatmulPreferenceDestroy(pref);
  report_["library_version"] = cublasLtGetVersion();
  report_["loop"] = "one cublasLtMatmul per non-empty group, group sizes given on the host";
  report_["buckets"] = std::move(buckets);
  planned_ = true;
  return PTXB_OK;
}

cublasStatus_t CublasLtGroupedGemm::group_matmul(const void* a, const void* b, void* c,
                                                 int64_t rows, cudaStream_t stream) {
  const uint64_t cols = static_cast<uint64_t>(rows);
  cublasStatus_t st =
      cublasLtMatrixLayoutSetAttribute(layout_a_, CUBLASLT_MATRIX_LAYOUT_COLS, &cols, sizeof cols);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatrixLayoutSetAttribute(layout_c_, CUBLASLT_MATRIX_LAYOUT_COLS, &cols,
                                          sizeof cols);
  if (st != CUBLAS_STATUS_SUCCESS) return st;
  const float alpha = 1.f, beta = 0.f;
  const auto it = algo_by_rows_.find(bucket_of(rows));
  if (it != algo_by_rows_.end()) {
    st = cublasLtMatmul(handle_, op_, &alpha, b, layout_b_, a, layout_a_, &beta, c, layout_c_, c,
                        layout_c_, &it->second, workspace_.data(), workspace_.bytes(), stream);
    if (st != CUBLAS_STATUS_NOT_SUPPORTED) return st;
  }
  // NOTE: the bucket's algorithm may not take every size below it; cuBLASLt then chooses itself.
  return cublasLtMatmul(handle_, op_, &alpha, b, layout_b_, a, layout_a_, &beta, c, layout_c_, c,
                        layout_c_, nullptr, workspace_.data(), workspace_.bytes(), stream);
}

int CublasLtGroupedGemm::run(const ptxb_args& args) {
  if (!planned_) return 3;
  const std::vector<int64_t>* offsets = mirrored_host_integers(args.inputs[2]);
  if (offsets == nullptr || static_cast<int64_t>(offsets->size()) != groups_ + 1) return 7;
  const auto stream = static_cast<cudaStream_t>(args.stream);
  const auto* a = static_cast<const uint8_t*>(args.inputs[0]);
  const auto* b = static_cast<const uint8_t*>(args.inputs[1]);
  auto* c = static_cast<uint8_t*>(args.outputs[0]);
  for (int64_t g = 0; g < groups_; ++g) {
    const int64_t row0 = (*offsets)[g], rows = (*offsets)[g + 1] - row0;
    if (rows <= 0) continue;
    const cublasStatus_t st =
        group_matmul(a + row0 * K_ * 2, b + g * N_ * K_ * 2,
                     c + row0 * N_ * static_cast<int64_t>(c_element_bytes_), rows, stream);
    if (st != CUBLAS_STATUS_SUCCESS) return 100 + static_cast<int>(st);
  }
  return PTXB_OK;
}

}  // namespace ptxb
