// The GEMM family: C = A * B^T (docs/tasks.md).
#include "families/family.hpp"

namespace ptxb {
namespace {

class GemmFamily final : public Family {
 public:
  std::string_view name() const override { return "gemm"; }
  std::vector<std::string> required_dims() const override { return {"M", "N", "K"}; }
  std::vector<FamilyTensor> tensors() const override {
    // The fp32 reference reads bf16 operands; outputs are compared as bf16 or f32.
    return {{"A", true, {DType::kBF16}},
            {"B", true, {DType::kBF16}},
            {"C", false, {DType::kBF16, DType::kF32}}};
  }
  std::vector<std::string> references() const override { return {"gemm_fp32"}; }
  // 2: computed in fp64 through cuBLASLt, rounded once to fp32; 1 was fp32 SIMT accumulation.
  std::string reference_version(const std::string&) const override { return "2"; }
  std::vector<std::string> baselines() const override { return {"cublaslt"}; }
  double flops(const Shape& s) const override {
    return 2.0 * static_cast<double>(s.at("M")) * static_cast<double>(s.at("N")) *
           static_cast<double>(s.at("K"));
  }
  int report_rank() const override { return 0; }
};

}  // namespace

const Family& gemm_family() {
  static const GemmFamily kFamily;
  return kFamily;
}

}  // namespace ptxb
