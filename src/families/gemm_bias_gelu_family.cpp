// The GEMM + bias + GELU family: C = GELU(A * B^T + bias), the epilogue of a transformer MLP's
// first projection. GELU in its tanh form, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as
// cuBLASLt's GELU_BIAS epilogue computes it (docs/tasks.md).
#include "families/family.hpp"

namespace ptxb {
namespace {

class GemmBiasGeluFamily final : public Family {
 public:
  std::string_view name() const override { return "gemm_bias_gelu"; }
  std::vector<std::string> required_dims() const override { return {"M", "N", "K"}; }
  std::vector<FamilyTensor> tensors() const override {
    // The fp32 reference reads bf16 operands and a bf16 bias; C is compared as bf16 or f32.
    return {{"A", true, {DType::kBF16}},
            {"B", true, {DType::kBF16}},
            {"bias", true, {DType::kBF16}},
            {"C", false, {DType::kBF16, DType::kF32}}};
  }
  std::vector<std::string> references() const override { return {"gemm_bias_gelu_fp32"}; }
  // 2: the product in fp64 (the GEMM reference's version 2), the epilogue in fp32 as before.
  std::string reference_version(const std::string&) const override { return "2"; }
  std::vector<std::string> baselines() const override { return {"cublaslt"}; }
  // NOTE: the matrix product's FLOPs only (the GEMM family's rule), as libraries count a fused
  // epilogue; its dozen operations per output are under 1% of the work from K = 600 on.
  double flops(const Shape& s) const override { return family_of("gemm").flops(s); }
  int report_rank() const override { return 3; }
};

}  // namespace

const Family& gemm_bias_gelu_family() {
  static const GemmBiasGeluFamily kFamily;
  return kFamily;
}

}  // namespace ptxb
