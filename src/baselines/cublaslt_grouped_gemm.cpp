#include "baselines/cublaslt_grouped_gemm.hpp"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <string>
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

constexpr int kTuneWarmups = 1, kTuneRuns = 5;

// The smallest power of two >= rows (rows >= 1).
int64_t bucket_of(int64_t rows) {
  int64_t b = 1;
  while (b < rows) b *= 2;
  return b;
}

// Median microseconds of `call` on `stream` (kTuneWarmups, then kTuneRuns timed, synchronizing);
// the first non-zero status instead when a call fails.
int median_us_of(const std::function<int()>& call, cudaStream_t stream, double& median_us) {
  Event start, stop;
  std::vector<double> us;
  for (int rep = 0; rep < kTuneWarmups + kTuneRuns; ++rep) {
    start.record(stream);
    const int status = call();
    stop.record(stream);
    PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
    if (status != 0) return status;
    if (rep >= kTuneWarmups) us.push_back(1000.0 * stop.elapsed_ms_since(start));
  }
  std::sort(us.begin(), us.end());
  median_us = us[us.size() / 2];
  return 0;
}

}  // namespace

// One cublasGemmGroupedBatchedEx call's arguments for a set of buffers and group sizes: a group
// of one problem per non-empty expert, in cuBLAS's column-major view D_g (N x rows) = B_g^T A_g
// (B_g stored K x N, A_g K x rows, C_g N x rows, all with their row-major leading dimensions).
struct CublasLtGroupedGemm::PointerArrays {
  std::vector<int64_t> offsets;  ///< the group sizes these arrays were built for
  std::vector<cublasOperation_t> trans_a, trans_b;
  std::vector<int> m, n, k, lda, ldb, ldc, group_size;
  std::vector<float> alpha, beta;
  DeviceBuffer pointers;  ///< B_g operands, then A_g operands, then C_g outputs
  int count = 0;
};

CublasLtGroupedGemm::CublasLtGroupedGemm(int heuristic_algos, int64_t workspace_bytes)
    : heuristic_algos_(heuristic_algos), workspace_(static_cast<size_t>(workspace_bytes)) {
  PTXB_CHECK_CUBLAS(cublasLtCreate(&handle_));
  PTXB_CHECK_CUBLAS(cublasCreate(&blas_));
}

CublasLtGroupedGemm::~CublasLtGroupedGemm() {
  release();
  cublasDestroy(blas_);
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
  arrays_.clear();
  path_ = Path::kLoop;
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
  int blas_version = 0;
  cublasGetVersion(blas_, &blas_version);
  report_["library_version"] = cublasLtGetVersion();
  report_["cublas_version"] = blas_version;
  report_["loop"] = "one cublasLtMatmul per non-empty group, group sizes given on the host";
  report_["grouped_batched"] =
      "one cublasGemmGroupedBatchedEx call, a group of one problem per non-empty expert, group "
      "sizes given on the host";
  report_["chosen_path"] = "loop";
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

int CublasLtGroupedGemm::run_loop(const ptxb_args& args, const std::vector<int64_t>& offsets) {
  const auto stream = static_cast<cudaStream_t>(args.stream);
  const auto* a = static_cast<const uint8_t*>(args.inputs[0]);
  const auto* b = static_cast<const uint8_t*>(args.inputs[1]);
  auto* c = static_cast<uint8_t*>(args.outputs[0]);
  for (int64_t g = 0; g < groups_; ++g) {
    const int64_t row0 = offsets[g], rows = offsets[g + 1] - row0;
    if (rows <= 0) continue;
    const cublasStatus_t st =
        group_matmul(a + row0 * K_ * 2, b + g * N_ * K_ * 2,
                     c + row0 * N_ * static_cast<int64_t>(c_element_bytes_), rows, stream);
    if (st != CUBLAS_STATUS_SUCCESS) return 100 + static_cast<int>(st);
  }
  return PTXB_OK;
}

int CublasLtGroupedGemm::run_grouped_batched(const ptxb_args& args,
                                             const std::vector<int64_t>& offsets) {
  auto& slot = arrays_[{args.inputs[0], args.inputs[1], args.outputs[0]}];
  if (!slot || slot->offsets != offsets) {
    slot = std::make_unique<PointerArrays>();
    PointerArrays& p = *slot;
    p.offsets = offsets;
    std::vector<const void*> b_ops, a_ops, c_outs;
    for (int64_t g = 0; g < groups_; ++g) {
      const int64_t row0 = offsets[g], rows = offsets[g + 1] - row0;
      if (rows <= 0) continue;
      b_ops.push_back(static_cast<const uint8_t*>(args.inputs[1]) + g * N_ * K_ * 2);
      a_ops.push_back(static_cast<const uint8_t*>(args.inputs[0]) + row0 * K_ * 2);
      c_outs.push_back(static_cast<const uint8_t*>(args.outputs[0]) +
                       row0 * N_ * static_cast<int64_t>(c_element_bytes_));
      p.trans_a.push_back(CUBLAS_OP_T);
      p.trans_b.push_back(CUBLAS_OP_N);
      p.m.push_back(static_cast<int>(N_));
      p.n.push_back(static_cast<int>(rows));
      p.k.push_back(static_cast<int>(K_));
      p.lda.push_back(static_cast<int>(K_));
      p.ldb.push_back(static_cast<int>(K_));
      p.ldc.push_back(static_cast<int>(N_));
      p.group_size.push_back(1);
      p.alpha.push_back(1.f);
      p.beta.push_back(0.f);
    }
    p.count = static_cast<int>(b_ops.size());
    std::vector<const void*> all = b_ops;
    all.insert(all.end(), a_ops.begin(), a_ops.end());
    all.insert(all.end(), c_outs.begin(), c_outs.end());
    if (p.count > 0) {
      p.pointers = DeviceBuffer(all.size() * sizeof(void*));
      PTXB_CHECK_CUDA(cudaMemcpy(p.pointers.data(), all.data(), all.size() * sizeof(void*),
                                 cudaMemcpyHostToDevice));
    }
  }
  const PointerArrays& p = *slot;
  if (p.count == 0) return PTXB_OK;  // every group empty: nothing to write
  cublasStatus_t st = cublasSetStream(blas_, static_cast<cudaStream_t>(args.stream));
  if (st == CUBLAS_STATUS_SUCCESS) {
    const auto* const* ptrs = static_cast<const void* const*>(p.pointers.data());
    void* const* outs = static_cast<void* const*>(p.pointers.data()) + 2 * p.count;
    st = cublasGemmGroupedBatchedEx(
        blas_, p.trans_a.data(), p.trans_b.data(), p.m.data(), p.n.data(), p.k.data(),
        p.alpha.data(), ptrs, CUDA_R_16BF, p.lda.data(), ptrs + p.count, CUDA_R_16BF, p.ldb.data(),
        p.beta.data(), outs, c_element_bytes_ == 2 ? CUDA_R_16BF : CUDA_R_32F, p.ldc.data(),
        p.count, p.group_size.data(), CUBLAS_COMPUTE_32F);
  }
  return st == CUBLAS_STATUS_SUCCESS ? PTXB_OK : 100 + static_cast<int>(st);
}

int CublasLtGroupedGemm::tune(const ptxb_args& args) {
  if (!planned_) return 3;
  path_ = Path::kLoop;
  const std::vector<int64_t>* offsets = mirrored_host_integers(args.inputs[2]);
  if (offsets == nullptr || static_cast<int64_t>(offsets->size()) != groups_ + 1) return 7;
  const auto stream = static_cast<cudaStream_t>(args.stream);
  double loop_us = 0, grouped_us = 0;
  if (const int st = median_us_of([&] { return run_loop(args, *offsets); }, stream, loop_us))
    return st;
  report_["paths"]["loop"] = {{"median_us", loop_us}};
  const int grouped =
      median_us_of([&] { return run_grouped_batched(args, *offsets); }, stream, grouped_us);
  if (grouped != 0) {
    (void)cudaGetLastError();  // a refused call leaves nothing sticky; clear what it may have set
    report_["paths"]["grouped_batched"] = {
        {"error", "cublasGemmGroupedBatchedEx: status " + std::to_string(grouped - 100)}};
  } else {
    report_["paths"]["grouped_batched"] = {{"median_us", grouped_us}};
    if (grouped_us < loop_us) path_ = Path::kGroupedBatched;
  }
  report_["paths"]["timing"] = {
      {"warmups", kTuneWarmups}, {"runs", kTuneRuns}, {"statistic", "median"}};
  report_["chosen_path"] = path_ == Path::kLoop ? "loop" : "grouped_batched";
  return PTXB_OK;
}

int CublasLtGroupedGemm::run(const ptxb_args& args) {
  if (!planned_) return 3;
  const std::vector<int64_t>* offsets = mirrored_host_integers(args.inputs[2]);
  if (offsets == nullptr || static_cast<int64_t>(offsets->size()) != groups_ + 1) return 7;
  return path_ == Path::kLoop ? run_loop(args, *offsets) : run_grouped_batched(args, *offsets);
}

}  // namespace ptxb
