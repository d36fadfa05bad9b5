// The grouped (MoE) GEMM family: G groups; group g multiplies rows [off_g, off_g+1) of A [M, K]
// by its own weight B_g (B [G, N, K], K-major) into the same rows of C [M, N]. The offsets
// [G+1] (int32, from 0 to M, drawn as structured "offsets": some groups empty, some of one row)
// exist only on the device; M is the sum of the group sizes.
#include "families/family.hpp"

namespace ptxb {
namespace {

class GemmGroupedFamily final : public Family {
 public:
  std::string_view name() const override { return "gemm_grouped"; }
  std::vector<std::string> required_dims() const override { return {"G", "M", "N", "K"}; }
  std::string dims_hint() const override {
    return "G groups, M rows of A and C in all (the sum of the group sizes)";
  }
  std::vector<FamilyTensor> tensors() const override {
    return {{"A", true, {DType::kBF16}},
            {"B", true, {DType::kBF16}},
            {"offsets", true, {DType::kI32}},
            {"C", false, {DType::kBF16, DType::kF32}}};
  }
  std::vector<std::string> references() const override { return {"gemm_grouped_fp32"}; }
  // 1: each group's product in fp64 through cuBLASLt (bf16 widened exactly), rounded once to fp32.
  std::string reference_version(const std::string&) const override { return "1"; }
  std::vector<std::string> baselines() const override { return {"cublaslt"}; }
  // Every row of A belongs to one group: 2 M N K, whatever the split.
  double flops(const Shape& s) const override {
    return 2.0 * static_cast<double>(s.at("M")) * static_cast<double>(s.at("N")) *
           static_cast<double>(s.at("K"));
  }
  int report_rank() const override { return 6; }
};

}  // namespace

const Family& gemm_grouped_family() {
  static const GemmGroupedFamily kFamily;
  return kFamily;
}

}  // namespace ptxb
