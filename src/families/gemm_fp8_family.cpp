// The per-tensor scaled fp8 GEMM family: C = s_a * s_b * (A * B^T), A [M, K] and B [N, K] in
// E4M3 (K-major), s_a and s_b one f32 each on the device (as cuBLASLt's A/B scale pointers take
// them; drawn per case as structured "scales"), C in bf16. docs/tasks.md states the tolerance.
#include "families/family.hpp"

namespace ptxb {
namespace {

class GemmFp8Family final : public Family {
 public:
  std::string_view name() const override { return "gemm_fp8"; }
  std::vector<std::string> required_dims() const override { return {"M", "N", "K"}; }
  std::vector<FamilyTensor> tensors() const override {
    // The reference widens E4M3 operands and f32 scales exactly; C is compared as bf16 or f32.
    return {{"A", true, {DType::kF8E4M3}},
            {"B", true, {DType::kF8E4M3}},
            {"scale_a", true, {DType::kF32}},
            {"scale_b", true, {DType::kF32}},
            {"C", false, {DType::kBF16, DType::kF32}}};
  }
  std::vector<std::string> references() const override { return {"gemm_scaled_fp32"}; }
  // 1: s_a s_b A B^T in fp64 through cuBLASLt (operands widened exactly), rounded once to fp32.
  std::string reference_version(const std::string&) const override { return "1"; }
  std::vector<std::string> baselines() const override { return {"cublaslt"}; }
  double flops(const Shape& s) const override { return family_of("gemm").flops(s); }
  int report_rank() const override { return 4; }
};

}  // namespace

const Family& gemm_fp8_family() {
  static const GemmFp8Family kFamily;
  return kFamily;
}

}  // namespace ptxb
