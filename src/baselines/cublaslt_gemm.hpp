// The GEMM baseline: cuBLASLt, C = A * B^T with the task's row-major layouts and element types
// (bf16, f16 or f32 in and out), fp32 accumulation. plan() asks the heuristic for up to N
// algorithms, times them on scratch data of the same shape (30 interleaved rounds, L2 flushed,
// after 3 warm-ups) and keeps the heuristic's first unless another is faster by more than 2%
// (choose_algorithm), unless prefer() gave it the choice for the problem. With an epilogue, the
// library applies it in the same call: kBiasGelu is C = GELU(A * B^T + bias), bias a vector of N
// elements (the problem's third input), cuBLASLt's CUBLASLT_EPILOGUE_GELU_BIAS. With per-tensor
// scaling (fp8 operands), C = s_a * s_b * (A * B^T) where s_a and s_b are the problem's third and
// fourth inputs (one f32 each, on the device), passed as cuBLASLt's A/B scale pointers; fast
// accumulation stays off (the default, set explicitly): partial sums leave the tensor cores' fp8
// accumulator as the library intends.
#pragma once

#include <cublasLt.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "timing/implementation.hpp"

namespace ptxb {

enum class GemmEpilogue { kNone, kBiasGelu };
/// kPerTensor: one f32 per operand; kBlockwise: scale_a f32 [ceil(K/128), M] (1 x 128 blocks of
/// A), scale_b f32 [ceil(N/128), ceil(K/128)] (128 x 128 blocks of B), as cuBLASLt's
/// VEC128_32F and BLK128x128_32F scale modes (the layout is checked against the reference in
/// tests/gpu).
enum class GemmScaling { kNone, kPerTensor, kBlockwise };

class CublasLtGemm final : public Implementation {
 public:
  CublasLtGemm(int heuristic_algos, int64_t workspace_bytes,
               GemmEpilogue epilogue = GemmEpilogue::kNone,
               GemmScaling scaling = GemmScaling::kNone);
  ~CublasLtGemm() override;
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  std::string name() const override { return "cublaslt"; }
  bool times_plans() const override { return true; }
  int plan(const ptxb_problem& problem, uint64_t* workspace_bytes) override;
  int run(const ptxb_args& args) override;

  /// What plan() saw: algorithms offered, their times, the one chosen, the library version.
  nlohmann::json plan_report() const override { return report_; }
  /// {"library": "cublaslt <version>", "problem": shape, types and mode, "index": the offered
  /// algorithm's place in the heuristic's list, "algo": its 64 bytes in hex, "median_us"}.
  nlohmann::json plan_choice() const override { return choice_; }
  /// A preferred choice is taken when the heuristic offers the same algorithm bytes at the same
  /// place for the problem; then plan() times nothing.
  void prefer(const nlohmann::json& choices) override;

 private:
  void release_descriptors();
  /// One call; `bias` is the epilogue's vector (ignored without an epilogue), `scale_a` and
  /// `scale_b` the per-tensor scales (ignored without scaling).
  cublasStatus_t matmul(const cublasLtMatmulAlgo_t& algo, const void* a, const void* b,
                        const void* bias, const void* scale_a, const void* scale_b, void* c,
                        cudaStream_t stream);

  int heuristic_algos_;
  GemmEpilogue epilogue_;
  GemmScaling scaling_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t layout_a_ = nullptr, layout_b_ = nullptr, layout_c_ = nullptr;
  DeviceBuffer workspace_;
  /// Block scaling: cuBLASLt reads the 128x128 block scales of our B ([ceil(N/128),
  /// ceil(K/128)], row-major) with a row pitch of ceil(K/128) rounded up to kBlockScalePitch
  /// floats; when that differs, run() copies them into this padded buffer first.
  int64_t block_rows_ = 0, block_cols_ = 0, block_pitch_ = 0;
  DeviceBuffer block_scales_padded_;
  cublasLtMatmulAlgo_t algo_{};
  bool planned_ = false;
  nlohmann::json report_;
  nlohmann::json choice_;
  std::map<std::string, nlohmann::json> preferred_;  ///< problem key -> choice
};

}  // namespace ptxb
