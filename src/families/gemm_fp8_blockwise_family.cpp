// The block-scaled fp8 GEMM family (DeepSeek-V3's scheme): C = sum over K of (A * s_a)(B * s_b)^T
// with A [M, K] and B [N, K] in E4M3 (K-major), scale_a f32 [ceil(K/128), M] (one scale per row
// and 128 of K), scale_b f32 [ceil(N/128), ceil(K/128)] (one per 128 x 128 block of B), C bf16.
#include "families/family.hpp"

namespace ptxb {
namespace {

class GemmFp8BlockwiseFamily final : public Family {
 public:
  std::string_view name() const override { return "gemm_fp8_blockwise"; }
  std::vector<std::string> required_dims() const override { return {"M", "N", "K"}; }
  std::vector<FamilyTensor> tensors() const override {
    return {{"A", true, {DType::kF8E4M3}},
            {"B", true, {DType::kF8E4M3}},
            {"scale_a", true, {DType::kF32}},
            {"scale_b", true, {DType::kF32}},
            {"C", false, {DType::kBF16, DType::kF32}}};
  }
  std::vector<std::string> references() const override { return {"gemm_blockwise_fp32"}; }
  // 1: operands widened with their block scales in fp64, one fp64 product, rounded to fp32.
  std::string reference_version(const std::string&) const override { return "1"; }
  std::vector<std::string> baselines() const override { return {"cublaslt"}; }
  double flops(const Shape& s) const override { return family_of("gemm").flops(s); }
  int report_rank() const override { return 5; }
};

}  // namespace

const Family& gemm_fp8_blockwise_family() {
  static const GemmFp8BlockwiseFamily kFamily;
  return kFamily;
}

}  // namespace ptxb
